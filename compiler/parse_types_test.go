package compiler

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
)

// TestGoTypesMatchParser: the JSON keys of the api/ossie types are the
// keys Parse reads, and a key is required in the parser exactly when its
// Go field has no omitempty/omitzero (controller-gen derives the CRD's
// required keys from that). A field added to an api/ossie type without a
// reader here, or the other way round, fails.
func TestGoTypesMatchParser(t *testing.T) {
	w := &walker{}
	objects := map[reflect.Type][]key{
		reflect.TypeFor[ossie.Document]():          documentKeys(w, &ossie.Document{}),
		reflect.TypeFor[ossie.SemanticModel]():     modelKeys(w, &ossie.SemanticModel{}),
		reflect.TypeFor[ossie.Dataset]():           datasetKeys(w, &ossie.Dataset{}),
		reflect.TypeFor[ossie.Field]():             fieldKeys(w, &ossie.Field{}),
		reflect.TypeFor[ossie.Dimension]():         dimensionKeys(w, &ossie.Dimension{}),
		reflect.TypeFor[ossie.Relationship]():      relationshipKeys(w, &ossie.Relationship{}),
		reflect.TypeFor[ossie.Metric]():            metricKeys(w, &ossie.Metric{}),
		reflect.TypeFor[ossie.Expression]():        expressionKeys(w, &ossie.Expression{}),
		reflect.TypeFor[ossie.DialectExpression](): dialectExpressionKeys(w, &ossie.DialectExpression{}),
		reflect.TypeFor[ossie.CustomExtension]():   customExtensionKeys(w, &ossie.CustomExtension{}),
	}
	for typ, keys := range objects {
		var goKeys, goRequired []string
		for i := range typ.NumField() {
			name, opts, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			goKeys = append(goKeys, name)
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				goRequired = append(goRequired, name)
			}
		}
		parserKeys, parserRequired := keyNames(keys)
		slices.Sort(goKeys)
		slices.Sort(goRequired)
		if !slices.Equal(goKeys, parserKeys) {
			t.Errorf("%s: Go keys %v, parser keys %v", typ, goKeys, parserKeys)
		}
		if !slices.Equal(goRequired, parserRequired) {
			t.Errorf("%s: Go requires %v, parser requires %v", typ, goRequired, parserRequired)
		}
	}
}

// keyNames lists the keys a parser object reads and those it requires,
// each sorted.
func keyNames(keys []key) (names, required []string) {
	for _, k := range keys {
		names = append(names, k.name)
		if k.required {
			required = append(required, k.name)
		}
	}
	slices.Sort(names)
	slices.Sort(required)
	return names, required
}
