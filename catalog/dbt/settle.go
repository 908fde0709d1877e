package dbt

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
)

// problemPath reads the item a problem is about: a metric, a relationship
// or a field of a dataset.
var problemPath = regexp.MustCompile(`^semantic_model\[0\]\.(metrics|relationships|datasets)\[(\d+)\](?:\.fields\[(\d+)\])?`)

// settle validates doc with the compiler (the same check as `ossiectl
// validate`) and takes out every metric, relationship or field an error
// is about, listing it as unmapped with the compiler's message, until the
// document validates: a mapped item the compiler refuses (an expression
// outside the bounded grammar, a filter reaching a dataset no
// relationship joins) is reported, never written. Removing an item can
// make others fail (a metric naming a removed one); they go the same way.
// An error about anything else is a bug of the mapping and is returned.
func (im *importer) settle(doc *ossie.Document) error {
	sm := &doc.SemanticModel[0]
	for range 100 {
		data, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		_, probs := compiler.Load(data, compiler.CompileOptions{})
		if !probs.HasErrors() {
			return nil
		}
		metrics, rels := map[int]string{}, map[int]string{}
		fields := map[[2]int]string{}
		for _, p := range probs {
			if p.Severity != compiler.SeverityError {
				continue
			}
			m := problemPath.FindStringSubmatch(p.Path)
			if m == nil {
				return fmt.Errorf("the imported document does not validate (a bug in the dbt import; please report it): %s", p)
			}
			i, _ := strconv.Atoi(m[2])
			msg := p.Code + " " + p.Message
			switch {
			case m[1] == "metrics":
				metrics[i] = msg
			case m[1] == "relationships":
				rels[i] = msg
			case m[3] != "":
				j, _ := strconv.Atoi(m[3])
				fields[[2]int{i, j}] = msg
			default:
				return fmt.Errorf("the imported document does not validate (a bug in the dbt import; please report it): %s", p)
			}
		}
		for _, i := range slices.Backward(sortedKeys(metrics)) {
			name := sm.Metrics[i].Name
			im.skip(im.origin[name], "Ossie metric %s was refused: %s", name, metrics[i])
			sm.Metrics = slices.Delete(sm.Metrics, i, i+1)
		}
		for _, i := range slices.Backward(sortedKeys(rels)) {
			name := sm.Relationships[i].Name
			im.skip(im.origin[name], "relationship %s was refused: %s", name, rels[i])
			sm.Relationships = slices.Delete(sm.Relationships, i, i+1)
		}
		keys := make([][2]int, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b [2]int) int {
			if a[0] != b[0] {
				return b[0] - a[0]
			}
			return b[1] - a[1]
		})
		for _, k := range keys {
			ds := &sm.Datasets[k[0]]
			name := ds.Name + "." + ds.Fields[k[1]].Name
			im.skip(im.origin[name], "field %s was refused: %s", name, fields[k])
			ds.Fields = slices.Delete(ds.Fields, k[1], k[1]+1)
		}
	}
	return fmt.Errorf("the imported document does not validate after 100 rounds (a bug in the dbt import; please report it)")
}

func sortedKeys(m map[int]string) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
