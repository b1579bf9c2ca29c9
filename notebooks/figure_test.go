package notebooks

import (
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"testing"

	"github.com/narlab/narlab/plots"
)

// TestCheckPNG checks the figure check itself: a real plots figure passes;
// blank, tiny and broken images fail.
func TestCheckPNG(t *testing.T) {
	fig, err := plots.Bars([]string{"a", "b", "c"}, []plots.BarGroup{{Label: "x", Values: []float64{1, 2, 3}}}, plots.BarOptions{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	good, err := fig.PNG()
	if err != nil {
		t.Fatal(err)
	}
	blank := image.NewRGBA(image.Rect(0, 0, 800, 400))
	for i := range blank.Pix {
		blank.Pix[i] = 0xff
	}
	small := image.NewRGBA(image.Rect(0, 0, 300, 200))
	for i := range small.Pix {
		small.Pix[i] = uint8(i)
	}
	enc := func(b []byte) json.RawMessage {
		raw, _ := json.Marshal(base64.StdEncoding.EncodeToString(b))
		return raw
	}
	if err := checkPNG(enc(good)); err != nil {
		t.Errorf("a plots.Bars figure: %v", err)
	}
	if err := checkPNG(enc([]byte("not a png"))); err == nil {
		t.Error("bytes that are not a PNG passed")
	}
	for _, tc := range []struct {
		name string
		img  image.Image
	}{
		{"blank", blank},
		{"too small", small},
		{"one line", func() image.Image {
			m := image.NewRGBA(image.Rect(0, 0, 800, 400))
			for i := range m.Pix {
				m.Pix[i] = 0xff
			}
			for x := 0; x < 800; x++ {
				m.Set(x, 200, color.Black)
			}
			return m
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkFigure(tc.img); err == nil {
				t.Errorf("%s image passed the figure check", tc.name)
			}
		})
	}
}
