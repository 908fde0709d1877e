package ossiectl

import (
	"encoding/json"
	"fmt"
)

// Reasons for breaking changes outside the document.
const (
	reasonViewGone    = "BI tools reading this view fail"
	reasonViewChanged = "BI tools reading this view get other columns or numbers"
	reasonRoleGone    = "callers and views planned under this role are refused"
)

// diffManifestExtras compares what SemanticModel manifests carry beside
// the document: spec.views by name (removed or changed = breaking, as BI
// tools read views directly) and spec.governance roles by name (a removed
// role is breaking; changed access rules are listed).
func diffManifestExtras(old, new *diffInput) []change {
	var out []change
	out = append(out, diffByName("view", list(old.views), list(new.views), reasonViewGone, reasonViewChanged)...)
	var og, ng struct {
		Attributes []json.RawMessage `json:"attributes"`
		Roles      []json.RawMessage `json:"roles"`
	}
	_ = json.Unmarshal(orNull(old.governance), &og)
	_ = json.Unmarshal(orNull(new.governance), &ng)
	out = append(out, diffByName("role", og.Roles, ng.Roles, reasonRoleGone, "")...)
	if a, b := canonical(og.Attributes), canonical(ng.Attributes); a != b {
		out = append(out, change{Kind: "changed", Object: "governance", Name: "attributes", Detail: fmt.Sprintf("%s -> %s", a, b)})
	}
	return out
}

// diffByName matches JSON objects with a `name` key. changedReason empty
// means a change is listed but not breaking.
func diffByName(object string, old, new []json.RawMessage, goneReason, changedReason string) []change {
	var out []change
	newByName := map[string]string{}
	var newOrder []string
	for _, n := range new {
		name := nameOf(n)
		newByName[name] = canonical(n)
		newOrder = append(newOrder, name)
	}
	seen := map[string]bool{}
	for _, o := range old {
		name := nameOf(o)
		seen[name] = true
		n, ok := newByName[name]
		switch {
		case !ok:
			out = append(out, change{Kind: "removed", Object: object, Name: name, Breaking: true, Reason: goneReason})
		case n != canonical(o):
			out = append(out, change{Kind: "changed", Object: object, Name: name, Detail: "definition changed", Breaking: changedReason != "", Reason: changedReason})
		}
	}
	for _, name := range newOrder {
		if !seen[name] {
			out = append(out, change{Kind: "added", Object: object, Name: name})
		}
	}
	return out
}

func list(raw []byte) []json.RawMessage {
	var l []json.RawMessage
	_ = json.Unmarshal(orNull(raw), &l)
	return l
}

func orNull(b []byte) []byte {
	if b == nil {
		return []byte("null")
	}
	return b
}

func nameOf(raw json.RawMessage) string {
	var v struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Name
}

// canonical re-encodes JSON with sorted keys, so key order never counts
// as a change.
func canonical(v any) string {
	b, _ := json.Marshal(v)
	var x any
	_ = json.Unmarshal(b, &x)
	b, _ = json.Marshal(x)
	return string(b)
}
