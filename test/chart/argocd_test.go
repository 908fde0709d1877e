package chart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// argoHealth runs the health check of docs/argocd.md (its ```lua block) on
// obj as ArgoCD does: obj is a global, the script returns {status, message}.
func argoHealth(t *testing.T, obj map[string]any) (status, message string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "argocd.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```lua\n")
	script, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/argocd.md has no ```lua block")
	}
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		t.Fatalf("health script: %v", err)
	}
	ret, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health script returned %s, want a table", L.Get(-1).Type())
	}
	return ret.RawGetString("status").String(), ret.RawGetString("message").String()
}

// toLua converts decoded JSON to Lua values (arrays 1-based), as ArgoCD does.
func toLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case string:
		return lua.LString(x)
	case int64:
		return lua.LNumber(x)
	case int:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case []any:
		t := L.NewTable()
		for _, e := range x {
			t.Append(toLua(L, e))
		}
		return t
	case map[string]any:
		t := L.NewTable()
		for k, e := range x {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	}
	panic("toLua: unexpected type")
}

func cond(typ, status, reason, message string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message}
}

func model(generation, observed int64, conds ...map[string]any) map[string]any {
	o := map[string]any{"metadata": map[string]any{"name": "m", "generation": generation}}
	if conds != nil {
		var cs []any
		for _, c := range conds {
			cs = append(cs, c)
		}
		o["status"] = map[string]any{"observedGeneration": observed, "conditions": cs, "publishedVersion": "sha256:abc"}
	}
	return o
}

// TestArgoCDHealthCheck runs the documented script on each row of its table.
func TestArgoCDHealthCheck(t *testing.T) {
	ready := cond("Ready", "True", "Ready", "ok")
	cases := []struct {
		name       string
		obj        map[string]any
		status     string
		messageHas string
	}{
		{"no status", model(1, 0), "Progressing", "Waiting"},
		{"old generation", model(2, 1, ready), "Progressing", "generation 2"},
		{"ready", model(3, 3, cond("Validated", "True", "Valid", ""), ready), "Healthy", "sha256:abc"},
		{"invalid", model(1, 1, cond("Validated", "False", "ValidationFailed", "OSS1001 at metrics[0]"),
			cond("Ready", "False", "LastGoodServing", "")), "Degraded", "OSS1001"},
		{"compile failed", model(1, 1, cond("Compiled", "False", "CompileFailed", "boom")), "Degraded", "CompileFailed"},
		{"drift", model(1, 1, cond("DriftDetected", "True", "Drift", "flights.delay missing"),
			cond("Ready", "False", "LastGoodServing", "")), "Degraded", "flights.delay missing"},
		{"permission", model(1, 1, cond("DriftDetected", "True", "PermissionDenied", "no SELECT")), "Degraded", "PermissionDenied"},
		{"engine down", model(1, 1, cond("DriftDetected", "Unknown", "EngineUnavailable", "timeout")), "Degraded", "EngineUnavailable"},
		{"too large", model(1, 1, cond("Published", "False", "ArtifactTooLarge", "over")), "Degraded", "ArtifactTooLarge"},
		{"name conflict", model(1, 1, cond("Published", "False", "NameConflict", "taken")), "Degraded", "NameConflict"},
		{"views failed", model(1, 1, ready, cond("ViewsReady", "False", "ViewFailed", "denied")), "Degraded", "ViewFailed"},
		{"publishing", model(1, 1, cond("Published", "False", "PublishFailed", "retrying"),
			cond("Ready", "False", "NotPublished", "retrying")), "Progressing", "NotPublished"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, msg := argoHealth(t, tc.obj)
			if status != tc.status || !strings.Contains(msg, tc.messageHas) {
				t.Errorf("health %s %q, want %s with %q", status, msg, tc.status, tc.messageHas)
			}
		})
	}
}
