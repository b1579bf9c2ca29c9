package mlflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// APIError is an error answer of the tracking server: a non-2xx status with,
// usually, a JSON body {"error_code": ..., "message": ...}.
type APIError struct {
	Method, Endpoint string // the request, e.g. POST mlflow/runs/log-batch
	HTTPStatus       int
	ErrorCode        string // e.g. RESOURCE_DOES_NOT_EXIST; empty when the body was not MLflow's JSON
	Message          string
}

func (e *APIError) Error() string {
	code := e.ErrorCode
	if code == "" {
		code = http.StatusText(e.HTTPStatus)
	}
	msg := e.Message
	if len(msg) > 600 {
		msg = msg[:600] + "…"
	}
	return fmt.Sprintf("mlflow: %s %s: HTTP %d %s: %s", e.Method, e.Endpoint, e.HTTPStatus, code, msg)
}

// newAPIError builds an APIError from an HTTP response whose body is b.
func newAPIError(method, endpoint string, status int, b []byte) *APIError {
	e := &APIError{Method: method, Endpoint: endpoint, HTTPStatus: status}
	var body struct {
		ErrorCode string `json:"error_code"`
		Message   string `json:"message"`
	}
	if json.Unmarshal(b, &body) == nil && body.ErrorCode != "" {
		e.ErrorCode, e.Message = body.ErrorCode, body.Message
	} else {
		e.Message = strings.TrimSpace(string(b))
		if len(e.Message) > 300 {
			e.Message = e.Message[:300] + "…"
		}
	}
	return e
}

// IsNotFound reports whether err is the server's "does not exist" answer.
func IsNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.HTTPStatus == http.StatusNotFound ||
		e.ErrorCode == "RESOURCE_DOES_NOT_EXIST" || e.ErrorCode == "NOT_FOUND")
}

// IsAlreadyExists reports whether err is the server's "already exists" answer.
func IsAlreadyExists(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.ErrorCode == "RESOURCE_ALREADY_EXISTS" || e.ErrorCode == "ALREADY_EXISTS")
}

// raced reports whether err is a SQL-backed server's answer to a request
// that lost a race to create the same row as another: MLflow's store looks
// the row up (a dataset by experiment, name and digest; a run's model
// output), both requests miss it, and the second insert fails on the
// unique key, answered as 400 BAD_REQUEST naming the database's integrity
// error (sqlite3's IntegrityError, PostgreSQL's UniqueViolation, MySQL's
// duplicate entry). Two runs of one experiment that log the same dataset
// at once meet it; sent again, the request finds the row.
func raced(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.HTTPStatus != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(e.Message)
	for _, s := range []string{"integrityerror", "uniqueviolation", "unique constraint", "duplicate entry"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// racedError marks a raced answer to an idempotent request (see raced):
// worth sending again, not a rejection.
type racedError struct{ err error }

func (e *racedError) Error() string {
	return e.err.Error() + " (lost a race with another run's request; sent again)"
}
func (e *racedError) Unwrap() error { return e.err }

// ErrPending is wrapped by errors of [RunLogger.Flush] and [RunLogger.End]
// when requests could not be delivered in time: they are safe in the run's
// spool and will be sent by the logger, by the next run, or by
// `narlab mlflow sync`.
var ErrPending = errors.New("requests pending in the spool")

// ErrAmbiguous is wrapped by errors after which the server may or may not
// have applied a non-idempotent request (a timeout or a connection reset
// after the request was sent, or a 5xx answer other than 503). Such requests
// are not retried blindly; the run logger checks the server's state first.
var ErrAmbiguous = errors.New("the server may have applied the request")

// ValidationError reports a value that MLflow would reject (or truncate),
// caught before anything was sent or spooled.
type ValidationError struct {
	What   string // e.g. `metric key "a//b"`
	Reason string // what is wrong and what is expected
}

func (e *ValidationError) Error() string { return "mlflow: " + e.What + ": " + e.Reason }

// transient reports whether err is worth retrying later: a connection
// failure, a timeout, or HTTP 408, 429, 500, 502, 503 or 504.
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ae *APIError
	if errors.As(err, &ae) {
		switch ae.HTTPStatus {
		case 408, 429, 500, 502, 503, 504:
			return true
		}
		return false
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// notApplied reports whether err proves that the server did not apply the
// request: the connection could not be made, or the server refused it
// before processing (408, 429, 503).
func notApplied(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		switch ae.HTTPStatus {
		case 408, 429, 503:
			return true
		}
		return false
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
