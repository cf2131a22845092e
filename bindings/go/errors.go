package wasp

import (
	"context"
	"fmt"
)

// Code is a libwasp error code (enum wasp_code in wasp.h).
type Code int

// The error codes of libwasp.
const (
	CodeOK       Code = 0
	CodeInput    Code = 1 // bad input: syntax, type, value, reference
	CodeNoMem    Code = 2 // out of memory
	CodeIO       Code = 3 // cannot read or write a file
	CodeInvalid  Code = 4 // bad argument to a call
	CodeSolver   Code = 5 // the solver failed
	CodeCanceled Code = 6 // cancelled before any plan existed
	CodeLimit    Code = 7 // input over a size limit
	CodeNotFound Code = 8 // a named object does not exist
)

var codeNames = [...]string{"OK", "EINPUT", "ENOMEM", "EIO", "EINVAL",
	"ESOLVER", "ECANCELED", "ELIMIT", "ENOTFOUND"}

// String is the code's name as `wasp serve` spells it ("EINPUT").
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("E%d", int(c))
}

// Error is a libwasp error.  File, Line and Col (1-based) locate bad
// input and are empty/zero otherwise.
type Error struct {
	Code Code
	File string
	Line int
	Col  int
	Msg  string
}

// Error reads "file:line:col: message", or just the message when there
// is no position, as the wasp command prints it.
func (e *Error) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// Is matches a bare *Error of the same code (errors.Is(err,
// wasp.ErrNotFound)) and, for CodeCanceled, context.Canceled.
func (e *Error) Is(target error) bool {
	if target == context.Canceled {
		return e.Code == CodeCanceled
	}
	t, ok := target.(*Error)
	return ok && t.File == "" && t.Msg == "" && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrInput    = &Error{Code: CodeInput}
	ErrInvalid  = &Error{Code: CodeInvalid}
	ErrLimit    = &Error{Code: CodeLimit}
	ErrNotFound = &Error{Code: CodeNotFound}
	ErrCanceled = &Error{Code: CodeCanceled}
)
