package launch_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/testenv"
)

// The test binary doubles as the server: with LAUNCH_TEST_MODE set it
// serves (or misbehaves) instead of running the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("LAUNCH_TEST_MODE") {
	case "":
		testenv.Main(m) // a temporary data directory, no process left behind
	case "serve": // answer GET /health with OK on LAUNCH_TEST_PORT
		fmt.Println("serving")
		http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "OK") })
		err := http.ListenAndServe("127.0.0.1:"+os.Getenv("LAUNCH_TEST_PORT"), nil)
		fmt.Println(err)
		os.Exit(1)
	case "exit": // fail at start-up
		fmt.Println("error: [Errno 98] address already in use")
		os.Exit(3)
	case "busy": // listen on LAUNCH_TEST_PORT, answer /health only after LAUNCH_TEST_BUSY
		busy, _ := time.ParseDuration(os.Getenv("LAUNCH_TEST_BUSY"))
		ready := time.Now().Add(busy)
		http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(time.Until(ready))
			fmt.Fprint(w, "OK")
		})
		fmt.Println(http.ListenAndServe("127.0.0.1:"+os.Getenv("LAUNCH_TEST_PORT"), nil))
		os.Exit(1)
	case "mute": // run but never answer
		time.Sleep(time.Minute)
		os.Exit(0)
	}
}
