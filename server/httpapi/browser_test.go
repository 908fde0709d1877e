package httpapi

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds the headless browser of the explorer tests
// (scripts/install-chromium.sh installs Debian's chromium). Without it the
// test skips, unless OSSIE_REQUIRE_BROWSER=1 (make test) makes that a
// failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("OSSIE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("OSSIE_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium found; run scripts/install-chromium.sh")
	}
	t.Skip("no chromium found (scripts/install-chromium.sh installs it; OSSIE_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// browser starts headless Chromium for the test's lifetime, its window
// 1280x900 CSS pixels.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// explorerPage drives one headless tab of the explorer. Clicks go
// through the DOM (element.click()): chromedp's mouse clicks wait on
// layout events that a loaded CI machine may not deliver in time.
type explorerPage struct {
	t   *testing.T
	ctx context.Context
}

func newExplorerPage(t *testing.T) *explorerPage {
	return &explorerPage{t: t, ctx: browser(t)}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// open loads url in the tab, through about:blank so that a URL differing
// only in its fragment still loads a fresh page.
func (p *explorerPage) open(url string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url)); err != nil {
		p.t.Fatal(err)
	}
}

// js evaluates an expression for its effects.
func (p *explorerPage) js(expr string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[chromedp.Void](expr)); err != nil {
		p.t.Fatalf("%v in %s", err, expr)
	}
}

// click clicks the element a CSS selector names.
func (p *explorerPage) click(sel string) {
	p.t.Helper()
	p.js(`document.querySelector(` + jsString(sel) + `).click()`)
}

// wait polls until a JavaScript expression is true (the page renders
// asynchronously after each API call); on timeout it fails with the
// page's text.
func (p *explorerPage) wait(expr string) {
	p.t.Helper()
	var err error
	for range 20 {
		_, err = chromedp.Run(p.ctx, chromedp.Poll[bool](expr))
		// A poll started while a navigation swaps the page's execution
		// context loses it; poll again in the new one.
		if err == nil || !strings.Contains(err.Error(), "Cannot find context") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		page, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		p.t.Fatalf("waiting for %s: %v; the page shows: %.2000s", expr, err, page)
	}
}

// waitFor waits until a CSS selector matches.
func (p *explorerPage) waitFor(sel string) {
	p.t.Helper()
	p.wait("!!document.querySelector(" + jsString(sel) + ")")
}

// read evaluates an expression into a value of type T.
func read[T any](p *explorerPage, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("%v in %.200s", err, expr)
	}
	return v
}

// screenshot saves the whole page as a PNG in the test's artifact
// directory (go test -artifacts keeps it) and logs where.
func (p *explorerPage) screenshot(name string) {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatal(err)
	}
	shot := filepath.Join(p.t.ArtifactDir(), name)
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", shot)
}
