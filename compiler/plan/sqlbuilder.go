package plan

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/compiler/expr"
)

// sqlBuilder is the statement being written: one buffer for the whole
// statement, so rendering does not build and join intermediate strings.
type sqlBuilder struct{ strings.Builder }

// sep writes ", " before every list item but the first.
func (w *sqlBuilder) sep(first *bool) {
	if *first {
		*first = false
		return
	}
	w.WriteString(", ")
}

func errUnresolved(r expr.Ref) error {
	return fmt.Errorf("unresolved reference %s.%s", r.Qualifier, r.Name)
}
