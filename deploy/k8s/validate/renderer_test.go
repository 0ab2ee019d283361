package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKustomizeMajor(t *testing.T) {
	for v, want := range map[string]int{"v5.5.0": 5, "v4.5.4": 4, "v2.0.3": 2, "5.0.1": 5, "": 0, "unknown": 0} {
		if got := kustomizeMajor(v); got != want {
			t.Errorf("kustomizeMajor(%q) = %d, want %d", v, got, want)
		}
	}
}

// fakeKubectl writes an executable that answers `version --client -o json` with versionJSON.
func fakeKubectl(t *testing.T, versionJSON string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubectl")
	script := "#!/bin/sh\nif [ \"$1\" = version ]; then echo '" + versionJSON + "'; exit 0; fi\necho 'not a kustomization' >&2\nexit 1\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Debian 12's kubernetes-client is kubectl 1.20.2: its kustomize (v2.0.3, not reported) cannot read the overlays.
func TestAutoFallsBackToTheLibraryFromAnOldOrMissingKubectl(t *testing.T) {
	old := fakeKubectl(t, `{"clientVersion":{"gitVersion":"v1.20.2"}}`)
	r, err := ChooseRenderer("auto", old)
	if err != nil || !strings.Contains(r.Name, "Go library") || !strings.Contains(r.Name, "v1.20.2") {
		t.Errorf("auto with kubectl 1.20: %q, %v", r.Name, err)
	}
	if _, err := ChooseRenderer("kubectl", old); err == nil || !strings.Contains(err.Error(), "kustomize v4+") {
		t.Errorf("-renderer kubectl with kubectl 1.20: %v", err)
	}
	r, err = ChooseRenderer("auto", filepath.Join(t.TempDir(), "no-kubectl"))
	if err != nil || !strings.Contains(r.Name, "Go library") || !strings.Contains(r.Name, "no-kubectl") {
		t.Errorf("auto without kubectl: %q, %v", r.Name, err)
	}
	if _, err := ChooseRenderer("helm", old); err == nil {
		t.Error("an unknown -renderer is accepted")
	}
	// A new enough kubectl is chosen, and its failures are reported (not replaced by the library).
	r, err = ChooseRenderer("auto", fakeKubectl(t, `{"clientVersion":{"gitVersion":"v1.32.4"},"kustomizeVersion":"v5.5.0"}`))
	if err != nil || !strings.HasPrefix(r.Name, "kubectl kustomize") {
		t.Fatalf("auto with kubectl 1.32: %q, %v", r.Name, err)
	}
	if problems, _ := ValidateWith(r, "../overlays/dev", Options{}, ""); len(problems) != 1 || !strings.Contains(problems[0], "not a kustomization") {
		t.Errorf("a failing kubectl kustomize: %v", problems)
	}
}

// With a usable kubectl (the one CI finds, if any), `kubectl kustomize` and the library render the same objects,
// so the library fallback validates what kubectl would apply.
func TestKubectlKustomizeRendersWhatTheLibraryRenders(t *testing.T) {
	kubectl, err := ChooseRenderer("kubectl", defaultKubectl())
	if err != nil {
		t.Skipf("no usable kubectl: %v", err)
	}
	t.Logf("comparing with %s", kubectl.Name)
	for _, dir := range []string{"../overlays/dev", "../overlays/production"} {
		byName := func(r Renderer) map[string]string {
			yml, err := r.Render(dir)
			if err != nil {
				t.Fatal(err)
			}
			objs, errs := DecodeStrict(yml)
			if len(errs) > 0 {
				t.Fatalf("%s (%s): %v", dir, r.Name, errs)
			}
			out := map[string]string{}
			for _, o := range objs {
				j, err := json.Marshal(o.Obj)
				if err != nil {
					t.Fatal(err)
				}
				out[o.GVK.Kind+"/"+o.Name] = string(j)
			}
			return out
		}
		a, b := byName(kubectl), byName(LibraryRenderer())
		if len(a) != len(b) {
			t.Errorf("%s: kubectl renders %d objects, the library %d", dir, len(a), len(b))
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s: %s differs between kubectl kustomize and the library", dir, k)
			}
		}
		if problems, n := ValidateWith(kubectl, dir, map[string]Options{"../overlays/dev": {}, "../overlays/production": prodSecrets}[dir], ""); len(problems) > 0 || n < 25 {
			t.Errorf("%s rendered by kubectl: %d objects, %v", dir, n, problems)
		}
	}
}
