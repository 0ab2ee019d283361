// Command validate renders kustomize overlays offline and checks them: every object decodes strictly into
// the k8s.io/api types, and the policies in policy.go and network.go hold (probes, requests and limits, the
// restricted securityContext, references, shutdown budgets, NetworkPolicy reachability).
//
//	go run . [-external-secrets a,b] <kustomization dir>...
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	external := flag.String("external-secrets", "", "comma-separated Secrets that may be referenced without being rendered")
	out := flag.String("o", "", "also write the rendered YAML of the last directory to this file")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: validate [-external-secrets a,b] <kustomization dir>...")
		os.Exit(2)
	}
	opts := Options{}
	if *external != "" {
		opts.ExternalSecrets = strings.Split(*external, ",")
	}
	failed := false
	for _, dir := range flag.Args() {
		problems, count := Validate(dir, opts, *out)
		for _, p := range problems {
			fmt.Printf("%s: %s\n", dir, p)
		}
		if len(problems) > 0 {
			failed = true
			fmt.Printf("%s: %d objects, %d problems\n", dir, count, len(problems))
		} else {
			fmt.Printf("%s: %d objects, valid\n", dir, count)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// Validate renders dir and returns every problem (decode errors, then policy violations) and the number of
// rendered objects.
func Validate(dir string, opts Options, out string) ([]string, int) {
	yml, err := Render(dir)
	if err != nil {
		return []string{err.Error()}, 0
	}
	if out != "" {
		if err := os.WriteFile(out, yml, 0o644); err != nil {
			return []string{err.Error()}, 0
		}
	}
	objs, errs := DecodeStrict(yml)
	var problems []string
	for _, e := range errs {
		problems = append(problems, e.Error())
	}
	return append(problems, Check(objs, opts)...), len(objs) + len(errs)
}
