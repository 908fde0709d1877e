package dialect

import "fmt"

// Level says how an engine runs one function or construct of the Ossie
// expression language (apache/ossie core-spec/expression_language.md).
type Level string

const (
	// Exact: the engine computes the value the language defines, natively
	// or through a translation (docs/engine-support.md shows which).
	Exact Level = "exact"
	// Approximate: the engine computes an estimate (a sketch), as the
	// language allows for APPROX_* functions only.
	Approximate Level = "approximate"
	// Unsupported: the engine cannot compute it; compiling a model that
	// uses it for this engine is problem OSS3008.
	Unsupported Level = "unsupported"
)

// Support is an engine's answer for one call: its Level and, when not
// Exact, a short note for messages and the engine support table.
type Support struct {
	Level Level
	Note  string
}

// supported is the answer for anything an engine runs exactly.
var supported = Support{Level: Exact}

// UnsupportedError is returned by rendering when the target engine cannot
// compute a call: Func is the Ossie name (TRY_CAST, PERCENTILE_CONT, ...),
// Engine the dialect name and Why the Support note.
type UnsupportedError struct {
	Func, Engine, Why string
}

func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("%s is not supported on engine %s", e.Func, e.Engine)
	if e.Why != "" {
		msg += ": " + e.Why
	}
	return msg
}
