package icebergrest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
)

// The fixture serves the REST catalog protocol on loopback, keeps what was
// made across the backend's pooled connections (the SQLite file, see
// start), and Stop kills the JVM and removes its directory.
func TestStartServeStop(t *testing.T) {
	c, err := Start()
	if err != nil {
		if errors.Is(err, ErrNotInstalled) && os.Getenv(RequireEnv) != "1" {
			t.Skipf("SKIPPING: %v", err)
		}
		t.Fatal(err)
	}
	t.Logf("started in %s", c.StartDuration)
	defer c.Stop()
	for _, ns := range []string{"a", "b", "c"} {
		resp, err := http.Post(c.URI()+"/v1/namespaces", "application/json", bytes.NewBufferString(`{"namespace":["`+ns+`"]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("create namespace %s: %s", ns, resp.Status)
		}
	}
	// Concurrent requests use more than one of the backend's connections.
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(c.URI() + "/v1/namespaces")
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			var list struct {
				Namespaces [][]string `json:"namespaces"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Namespaces) != 3 {
				errs <- fmt.Errorf("%s: %v %v", resp.Status, list.Namespaces, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("list namespaces: %v", err)
	}
	c.Stop()
	if c.proc.ProcessState == nil {
		t.Error("the JVM still runs after Stop")
	}
	if _, err := os.Stat(c.dir); !os.IsNotExist(err) {
		t.Errorf("%s not removed: %v", c.dir, err)
	}
	if _, err := http.Get(c.URI() + "/v1/config"); err == nil {
		t.Error("the catalog still answers after Stop")
	}
}
