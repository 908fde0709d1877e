package differential

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// Outcome is what one cell (entry point × format × engine) gave for a
// case: an answer, or a refusal with its problem codes and text.
type Outcome struct {
	Result *dcase.Result
	// Codes are the OSSnnnn codes of a refusal; Text its message.
	Codes []string
	Text  string
}

// answer is a successful Outcome.
func answer(r dcase.Result) Outcome { return Outcome{Result: &r} }

// refusal is a failed Outcome with the codes found in text.
func refusal(text string) Outcome { return Outcome{Codes: problemCodes(text), Text: text} }

// ErrNotApplicable marks a cell that cannot carry the case (the MCP query
// tool has no offset, say): the cell is skipped with the reason, never
// counted as passed.
var ErrNotApplicable = errors.New("not applicable")

// Check compares a cell's outcome with the case's expectation: the same
// answer value by value and type by type (dcase.Compare), or a refusal
// carrying the case's WantCode. csv says the answer came as CSV, which
// cannot tell an empty string from NULL; total that the entry point
// carries the row total a query asks for (the HTTP API), which must then
// be there.
func Check(c dcase.Case, o Outcome, csv, total bool) error {
	if c.WantCode != "" {
		if o.Result != nil {
			return fmt.Errorf("answered %d rows, want refusal %s%s", len(o.Result.Rows), c.WantCode, dcase.Format(o.Result.Rows))
		}
		if !slices.Contains(o.Codes, c.WantCode) {
			return fmt.Errorf("refused with %v, want %s: %s", o.Codes, c.WantCode, o.Text)
		}
		return nil
	}
	if c.Want == nil {
		return errors.New("the case has neither Want nor WantCode")
	}
	if o.Result == nil {
		return fmt.Errorf("refused (%s), want an answer: %s", strings.Join(o.Codes, ", "), o.Text)
	}
	want := *c.Want
	if total && want.Total != nil && o.Result.Total == nil {
		return fmt.Errorf("no total in the answer, want %d", *want.Total)
	}
	if csv {
		want = CSVWant(want)
	}
	return dcase.Compare(want, *o.Result, c.Ordered)
}
