package ossie

import (
	"encoding/json"
	"testing"
)

// TestSourceAndAIContextKeepWhatTheyRead: the two schemaless members of the
// SemanticModel CRD decode without error whatever JSON the API server
// admits, and encode back to the same JSON, so that compiler.Parse sees (and
// reports) what the user wrote.
func TestSourceAndAIContextKeepWhatTheyRead(t *testing.T) {
	sources := []struct {
		in     string
		unread bool
	}{
		{`"shop.orders"`, false},
		{`{"kind":"table","object":"main.orders"}`, false},
		{`{"kind":"query","object":{"dialects":[{"dialect":"ANSI_SQL","expression":"SELECT 1"}]}}`, false},
		{`42`, true},
		{`["a"]`, true},
		{`{"kind":"table"}`, true},
		{`{"kind":"view","object":"x"}`, true},
		{`{"kind":"table","object":"x","extra":1}`, true},
		{`{"kind":"table","object":5}`, true},
		{`{"kind":"query","object":{"dialects":[{"dialect":"ANSI_SQL","expression":"SELECT 1","x":1}]}}`, true},
	}
	for _, c := range sources {
		var s Source
		if err := json.Unmarshal([]byte(c.in), &s); err != nil {
			t.Errorf("source %s: %v", c.in, err)
			continue
		}
		if (s.Unread != "") != c.unread {
			t.Errorf("source %s: unread %q, want unread=%v", c.in, s.Unread, c.unread)
		}
		if out, err := json.Marshal(s); err != nil || string(out) != c.in {
			t.Errorf("source %s: written back as %s (%v)", c.in, out, err)
		}
	}
	contexts := []struct {
		in     string
		unread bool
	}{
		{`"Use revenue."`, false},
		{`{"examples":["e"],"instructions":"i","synonyms":["s"],"vendor":{"deep":[1,2]}}`, false},
		{`{"synonyms":5}`, true},
		{`[1,2]`, true},
		{`7`, true},
	}
	for _, c := range contexts {
		var a AIContext
		if err := json.Unmarshal([]byte(c.in), &a); err != nil {
			t.Errorf("ai_context %s: %v", c.in, err)
			continue
		}
		if (a.Unread != nil) != c.unread {
			t.Errorf("ai_context %s: unread %s, want unread=%v", c.in, a.Unread, c.unread)
		}
		if out, err := json.Marshal(a); err != nil || string(out) != c.in {
			t.Errorf("ai_context %s: written back as %s (%v)", c.in, out, err)
		}
	}
}
