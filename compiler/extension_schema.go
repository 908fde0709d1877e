package compiler

import (
	"bytes"
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// checkSchema validates raw, the value of a key of an OSSIE custom
// extension at path, against one of its versioned schemas (metric types,
// rollups) and reports every violation as code at the path of the
// offending value; help replaces the message of a "false schema" (a key
// the form does not take). It reports whether raw is valid.
func (mc *modelCheck) checkSchema(sch func() (*jsonschema.Schema, error), code, path string, raw json.RawMessage, help string) bool {
	s, err := sch()
	if err != nil {
		mc.errorf(code, path, "internal error: the schema does not compile: %v", err)
		return false
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil { // checkExtensions decoded it already
		mc.errorf(code, path, "not JSON: %v", err)
		return false
	}
	err = s.Validate(inst)
	if err == nil {
		return true
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		mc.errorf(code, path, "%v", err)
		return false
	}
	pr := message.NewPrinter(language.English)
	seen := map[string]bool{}
	var report func(e *jsonschema.ValidationError)
	report = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				report(c)
			}
			return
		}
		p := path
		for _, tok := range e.InstanceLocation {
			if tok != "" && tok[0] >= '0' && tok[0] <= '9' {
				p += "[" + tok + "]"
			} else {
				p += "." + tok
			}
		}
		msg := e.ErrorKind.LocalizedString(pr)
		if msg == "false schema" {
			msg = help
		}
		if !seen[p+msg] {
			seen[p+msg] = true
			mc.errorf(code, p, "%s", msg)
		}
	}
	report(verr)
	return false
}
