package queryjson

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/ossie-dev/ossie/compiler"
)

// DuplicateKeys reports every key given twice in one object of a JSON
// body, with its path (`filters[1].op`), as OSS4001 problems: encoding/json
// would keep the last value silently, and the model files refuse
// duplicates too (OSS1004). body must already decode; one pass over its
// tokens, so the cost is linear in its size.
func DuplicateKeys(body []byte) compiler.Problems {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var probs compiler.Problems
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ := kt.(string)
				kpath := key
				if path != "" {
					kpath = path + "." + key
				}
				if seen[key] && len(probs) < 20 {
					probs = append(probs, compiler.Problem{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Path: kpath,
						Message: "key " + strconv.Quote(key) + " is given twice; give each key once"})
				}
				seen[key] = true
				if !walk(kpath) {
					return false
				}
			}
			_, err = dec.Token()
			return err == nil
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !walk(path + "[" + strconv.Itoa(i) + "]") {
					return false
				}
			}
			_, err = dec.Token()
			return err == nil
		}
		return true
	}
	walk("")
	return probs
}
