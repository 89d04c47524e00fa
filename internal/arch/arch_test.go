package arch

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ssagen/ssagen/"

// layers ranks ssagen's packages, bottom up: a package imports only
// packages of lower layers, never one of its own layer or above (load
// and emit never know each other; output knows no emitter; the vet
// analyzers know only their shared checks, and those whose findings
// cover sites another must leave — createupdate and retryonconflict, a
// layer below the analyzers that require them). A package of these folders
// that is not ranked here fails the test until it is placed.
var layers = [][]string{
	{"internal/contract", "internal/atomicfile", "internal/gomod", "internal/gosrc", "templates", "generator/diag"},
	{"generator/model"},
	{"generator/schema", "generator/output", "vet/internal/flow"},
	{"generator/emit", "generator/load", "vet/internal/check"},
	{"vet/createupdate", "vet/retryonconflict"},
	{"generator", "vet/applytypedstruct", "vet/createorupdate", "vet/ownschurning", "vet/statusupdate", "vet/updatefromscratch", "audit"},
	{"vet"},
	{"vet/driver", "vet/golangci", "kubebuilder", "audit/auditenvtest"},
	{"cmd/ssagen"},
}

// ranked are the folders whose packages must be ranked.
var ranked = []string{"generator", "vet", "audit", "kubebuilder", "cmd", "templates", "internal/contract", "internal/atomicfile", "internal/gomod", "internal/gosrc"}

// TestLayers: no import runs back up a layer.
func TestLayers(t *testing.T) {
	rank := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			rank[p] = i
		}
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "github.com/ssagen/ssagen/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		if !inRanked(name) || strings.Contains(name, "/testdata/") || strings.Contains(name, "internal/vettest") {
			continue
		}
		r, ok := rank[name]
		if !ok {
			t.Errorf("%s is in no layer: place it in arch_test.go's layers", name)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			dep := strings.TrimPrefix(imp, module)
			if dep == imp || !inRanked(dep) {
				continue
			}
			if d, ok := rank[dep]; ok && d >= r {
				t.Errorf("%s (layer %d) imports %s (layer %d): an import runs up a layer or across one", name, r, dep, d)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages checked", checked)
	}
}

func inRanked(name string) bool {
	for _, f := range ranked {
		if name == f || strings.HasPrefix(name, f+"/") {
			return true
		}
	}
	return false
}
