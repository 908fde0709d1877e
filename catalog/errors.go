package catalog

// ErrorKind classifies a failure to read a catalog, so the CLI can choose
// its exit code (ossiectl: Unreachable → 3, others → 1).
type ErrorKind int

const (
	// Problem: the catalog answered but refused or could not serve the
	// request (unknown database, throttling, a server error).
	Problem ErrorKind = iota
	// Unreachable: no answer at all (connection refused, DNS, TLS, timeout).
	Unreachable
	// Denied: the credentials are missing, invalid or lack a permission.
	Denied
	// NotFound: a named database or schema does not exist, or nothing matched the selection.
	NotFound
)

// Error is a failure to read a catalog. Message says what happened and
// Next the step to take; neither contains credentials.
type Error struct {
	Kind    ErrorKind
	Message string
	Next    string
	Err     error
}

func (e *Error) Error() string {
	if e.Next == "" {
		return e.Message
	}
	return e.Message + "; " + e.Next
}

func (e *Error) Unwrap() error { return e.Err }
