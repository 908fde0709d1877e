package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server/servertest"
)

// TestStoreSwapUnderConcurrentQueries swaps two versions of one model
// while queries run; every answer must pair a version with that version's
// number (the planner a request looked up stays its own), and nothing may
// race (run with -race).
func TestStoreSwapUnderConcurrentQueries(t *testing.T) {
	v1, v2 := servertest.ShopVersion(t, nil), servertest.ShopVersion(t, servertest.DoubledRevenue)
	if v1[0].Version == v2[0].Version {
		t.Fatal("the edit did not change the version")
	}
	store := NewStore(nil)
	src := Source{Key: "configmap ns/ossie-shop", UID: "u1"}
	if err := store.Set(src, v1); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Engine: servertest.ShopEngine(t), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	q := &plan.Query{Metrics: []string{"revenue"}}
	want := map[string]string{} // version → revenue as JSON
	for _, v := range [][]*compiler.Artifact{v1, v2} {
		if err := store.Set(src, v); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Answer(context.Background(), "shop", q)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(resp.Rows[0][0])
		want[resp.ModelVersion] = string(js)
	}
	if len(want) != 2 || want[v1[0].Version] == want[v2[0].Version] {
		t.Fatalf("versions do not answer differently: %v", want)
	}

	stop := make(chan struct{})
	var swaps sync.WaitGroup
	swaps.Add(1)
	go func() {
		defer swaps.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			v := v1
			if i%2 == 1 {
				v = v2
			}
			if err := store.Set(src, v); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var (
		readers sync.WaitGroup
		mu      sync.Mutex
		seen    = map[string]int{}
	)
	for g := 0; g < 4; g++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := 0; i < 60; i++ {
				resp, err := srv.Answer(context.Background(), "shop", q)
				if err != nil {
					t.Error(err)
					return
				}
				js, _ := json.Marshal(resp.Rows[0][0])
				if want[resp.ModelVersion] != string(js) {
					t.Errorf("version %s answered %s, want %s", resp.ModelVersion, js, want[resp.ModelVersion])
					return
				}
				mu.Lock()
				seen[resp.ModelVersion]++
				mu.Unlock()
			}
		}()
	}
	readers.Wait()
	close(stop)
	swaps.Wait()
	if len(seen) != 2 {
		t.Errorf("queries saw only %v; the swap did not interleave", seen)
	}
}

func TestStoreKeepsLastGoodOnFailure(t *testing.T) {
	var logs bytes.Buffer
	store := NewStore(slog.New(slog.NewTextHandler(&logs, nil)))
	v1 := servertest.ShopVersion(t, nil)
	src := Source{Key: "configmap ns/ossie-shop", UID: "u1", Model: "shop"}
	if err := store.Set(src, v1); err != nil {
		t.Fatal(err)
	}

	store.Fail(src, LoadErrorDecode, errors.New("artifact bundle: unexpected EOF"))
	if got := store.Models(); len(got) != 1 || got[0] != v1[0] {
		t.Fatalf("after a refused update the store serves %v", got)
	}
	st := store.Status()["shop"]
	if st.Version != v1[0].Version || st.Source != src.Key || !strings.Contains(st.Error, "unexpected EOF") {
		t.Errorf("status %+v", st)
	}
	if !strings.Contains(logs.String(), "last good version keeps serving") {
		t.Errorf("no warning logged: %s", logs.String())
	}

	// A bundle that decodes but that the planner refuses is also refused
	// whole: the good model of the same bundle is not swapped in alone.
	v2 := servertest.ShopVersion(t, servertest.DoubledRevenue)
	if err := store.Set(src, []*compiler.Artifact{v2[0], nil}); err == nil {
		t.Fatal("a bundle with a nil artifact was accepted")
	}
	if got := store.Models(); len(got) != 1 || got[0] != v1[0] {
		t.Fatalf("a refused bundle was partly swapped in: %v", got)
	}

	// The next good version clears the error.
	if err := store.Set(src, v2); err != nil {
		t.Fatal(err)
	}
	if st := store.Status()["shop"]; st.Version != v2[0].Version || st.Error != "" {
		t.Errorf("status after recovery %+v", st)
	}

	// A source whose first version fails has nothing to serve but is
	// reported under the model it announces.
	store.Fail(Source{Key: "configmap ns/ossie-other", UID: "u2", Model: "other"}, LoadErrorDecode, errors.New("format \"v9\""))
	if st := store.Status()["other"]; st.Version != "" || st.Source != "configmap ns/ossie-other" || st.Error == "" {
		t.Errorf("never-loaded source status %+v", st)
	}
	if len(store.Models()) != 1 {
		t.Errorf("models %v", store.Models())
	}
	if !store.Remove("configmap ns/ossie-other", "u2") {
		t.Error("Remove of a failed source reported no change")
	}
	if _, ok := store.Status()["other"]; ok {
		t.Error("removed source still reported")
	}
}

func TestStoreNameConflictNewestWins(t *testing.T) {
	var logs bytes.Buffer
	store := NewStore(slog.New(slog.NewTextHandler(&logs, nil)))
	v1, v2 := servertest.ShopVersion(t, nil), servertest.ShopVersion(t, servertest.DoubledRevenue)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	older := Source{Key: "configmap a/ossie-shop", UID: "ua", Created: t0}
	newer := Source{Key: "configmap b/ossie-shop", UID: "ub", Created: t0.Add(time.Minute)}

	// Arrival order must not matter: the newer ConfigMap serves either way.
	if err := store.Set(newer, v2); err != nil {
		t.Fatal(err)
	}
	if err := store.Set(older, v1); err != nil {
		t.Fatal(err)
	}
	if st := store.Status()["shop"]; st.Source != newer.Key || st.Version != v2[0].Version {
		t.Fatalf("conflict resolved to %+v", st)
	}
	if !strings.Contains(logs.String(), "several sources provide the same model") || !strings.Contains(logs.String(), older.Key) {
		t.Errorf("conflict not logged: %s", logs.String())
	}

	// A delete carrying a stale uid (the ConfigMap was re-created) removes
	// nothing.
	if store.Remove(newer.Key, "stale") {
		t.Error("Remove with a stale uid changed the store")
	}
	if store.Status()["shop"].Source != newer.Key {
		t.Error("stale delete removed the model")
	}
	// Deleting the winner lets the older provider serve again.
	if !store.Remove(newer.Key, newer.UID) {
		t.Fatal("Remove reported no change")
	}
	if st := store.Status()["shop"]; st.Source != older.Key || st.Version != v1[0].Version {
		t.Errorf("after deleting the newer source: %+v", st)
	}
	if !store.Remove(older.Key, older.UID) || len(store.Models()) != 0 || len(store.Status()) != 0 {
		t.Errorf("store not empty after removing every source: %v %v", store.Models(), store.Status())
	}
}

// A new bundle of a source replaces its whole set: a model the source no
// longer lists stops being served.
func TestStoreSetReplacesTheSourceSet(t *testing.T) {
	shop := servertest.ShopVersion(t, nil)
	slow, probs := compiler.Load(mustRead(t, "testdata/slow.yaml"), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	store := NewStore(nil)
	src := Source{Key: "configmap ns/ossie-both"}
	if err := store.Set(src, append(append([]*compiler.Artifact{}, shop...), slow...)); err != nil {
		t.Fatal(err)
	}
	if n := len(store.Models()); n != 1+len(slow) {
		t.Fatalf("%d models", n)
	}
	if err := store.Set(src, shop); err != nil {
		t.Fatal(err)
	}
	if got := store.Models(); len(got) != 1 || got[0].Name != "shop" {
		t.Errorf("models after shrinking the bundle: %v", got)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
