package compiler

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// vendorDiffers names, per SQL vendor dialect, the functions of the Ossie
// language whose meaning differs in that dialect (argument order or kind),
// so an expression calling them there cannot be read as ANSI SQL. Sources:
// the vendors' SQL references (BigQuery DATE_TRUNC(date, part) and
// LOG(x, base); Databricks TRUNC(date, fmt) truncates dates).
var vendorDiffers = map[ossie.Dialect]map[string]string{
	ossie.BigQuery: {
		"DATE_TRUNC": "takes (value, part) in BIGQUERY, (part, value) in ANSI SQL",
		"LOG":        "takes (value, base) in BIGQUERY, (base, value) in ANSI SQL",
		"DATEDIFF":   "does not exist in BIGQUERY (DATE_DIFF takes (end, start, part))",
	},
	ossie.Databricks: {
		"TRUNC":    "truncates dates in DATABRICKS (TRUNC(date, fmt)), numbers in ANSI SQL",
		"TRUNCATE": "truncates dates in DATABRICKS, numbers in ANSI SQL",
	},
}

// quotedIsString lists the dialects where "text" is a string literal, not
// a quoted identifier (BigQuery always; Databricks unless ANSI mode is on).
var quotedIsString = map[ossie.Dialect]bool{ossie.BigQuery: true, ossie.Databricks: true}

// parseVendor reads an expression that has no portable entry from its SQL
// vendor dialect entries (ossie.VendorDialects, in that order): the first
// that parses under the bounded grammar and means the same in ANSI SQL is
// used, with a CodeVendorDialect warning naming its dialect. When vendor
// entries exist but none qualifies, one CodeVendorNotPortable problem at
// the first of them says why each failed. ok is false when e has no SQL
// vendor entry at all (the caller reports CodeNoPortableDialect).
func (mc *modelCheck) parseVendor(path, what, name string, e ossie.Expression) (checkedExpr, bool) {
	var reasons []string
	firstPath := ""
	for _, want := range ossie.VendorDialects {
		for i, de := range e.Dialects {
			if de.Dialect != want {
				continue
			}
			epath := fmt.Sprintf("%s.dialects[%d].expression", path, i)
			if firstPath == "" {
				firstPath = epath
			}
			node, why := vendorMeaning(de)
			if why != "" {
				reasons = append(reasons, fmt.Sprintf("%s: %s", de.Dialect, why))
				continue
			}
			mc.add(CodeVendorDialect, SeverityWarning, epath, fmt.Sprintf(
				"%s %q has no %s expression; its %s expression %q is read as ANSI SQL (it parses under the Ossie grammar and means the same); add an ANSI_SQL entry to make this explicit",
				what, name, portableNames(), de.Dialect, de.Expression))
			return checkedExpr{ok: true, dialect: de.Dialect, sql: de.Expression, node: node, path: epath}, true
		}
	}
	if firstPath == "" {
		return checkedExpr{}, false
	}
	mc.errorf(CodeVendorNotPortable, firstPath, "%s %q has no %s expression, and its vendor dialect entries cannot be read as ANSI SQL: %s; add an ANSI_SQL entry",
		what, name, portableNames(), strings.Join(reasons, "; "))
	return checkedExpr{}, true
}

// vendorMeaning parses de under the bounded grammar and returns the tree,
// or why it does not mean the same in ANSI SQL.
func vendorMeaning(de ossie.DialectExpression) (expr.Node, string) {
	node, errs := expr.Parse(de.Expression)
	if len(errs) > 0 {
		return nil, fmt.Sprintf("%s (at offset %d of %q)", errs[0].Message, errs[0].Offset, de.Expression)
	}
	if node == nil {
		return nil, "the expression is empty"
	}
	why := ""
	expr.Walk(node, func(n expr.Node) bool {
		if why != "" {
			return false
		}
		switch v := n.(type) {
		case expr.Ref:
			if v.Quoted && quotedIsString[de.Dialect] {
				why = fmt.Sprintf("%q is a string literal in %s, a quoted identifier in ANSI SQL", v.Name, de.Dialect)
			}
		case expr.Func:
			if r, ok := vendorDiffers[de.Dialect][strings.ToUpper(v.Name)]; ok {
				why = fmt.Sprintf("%s %s", strings.ToUpper(v.Name), r)
			}
		}
		return why == ""
	})
	if why != "" {
		return nil, why
	}
	return node, ""
}
