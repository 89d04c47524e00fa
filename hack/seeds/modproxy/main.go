// Command modproxy serves module versions the Go module proxy refuses
// from git clones of their public repositories, as a file-system module
// proxy (GOPROXY=file://DIR,https://proxy.golang.org). The seed operators
// require such versions (hack/seeds.sh); serving them this way leaves the
// operator's go.mod and go.sum untouched, and the go command checks each
// zip against the go.sum hash, so what is built is the very code the
// operator pins.
//
// Usage:
//
//	modproxy -dir DIR module@version=CLONE@REVISION[:SUBDIR] ...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "the proxy directory to write")
	flag.Parse()
	if *dir == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -dir DIR module@version=CLONE@REVISION[:SUBDIR] ...")
		os.Exit(2)
	}
	for _, arg := range flag.Args() {
		if err := serve(*dir, arg); err != nil {
			fmt.Fprintf(os.Stderr, "modproxy: %s: %v\n", arg, err)
			os.Exit(1)
		}
	}
}

// serve writes one module version's .info, .mod, .zip and list entry.
func serve(dir, arg string) error {
	mv, src, ok := strings.Cut(arg, "=")
	if !ok {
		return fmt.Errorf("want module@version=CLONE@REVISION[:SUBDIR]")
	}
	path, version, ok := strings.Cut(mv, "@")
	if !ok {
		return fmt.Errorf("want module@version before '='")
	}
	i := strings.LastIndex(src, "@")
	if i < 0 {
		return fmt.Errorf("want CLONE@REVISION after '='")
	}
	clone, rev := src[:i], src[i+1:]
	rev, subdir, _ := strings.Cut(rev, ":")
	mod := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	epath, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	eversion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, epath, "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	gomod := "go.mod"
	if subdir != "" {
		gomod = subdir + "/go.mod"
	}
	modFile, err := exec.Command("git", "-C", clone, "show", rev+":"+gomod).Output()
	if err != nil {
		return fmt.Errorf("git show %s:%s: %v", rev, gomod, err)
	}
	if err := os.WriteFile(filepath.Join(vdir, eversion+".mod"), modFile, 0o644); err != nil {
		return err
	}
	info, _ := json.Marshal(struct{ Version string }{version})
	if err := os.WriteFile(filepath.Join(vdir, eversion+".info"), info, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(vdir, eversion+".zip"))
	if err != nil {
		return err
	}
	if err := zipFromGit(f, mod, clone, rev, subdir); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	list, _ := os.ReadFile(filepath.Join(vdir, "list"))
	if !strings.Contains("\n"+string(list), "\n"+version+"\n") {
		list = append(list, version+"\n"...)
	}
	return os.WriteFile(filepath.Join(vdir, "list"), list, 0o644)
}

// zipFromGit extracts the revision's tree with git archive (which works on
// bare clones, unlike zip.CreateFromVCS) and zips it as the go command
// would: the module's files only, nested modules and vendor left out.
func zipFromGit(w io.Writer, mod module.Version, clone, rev, subdir string) error {
	tmp, err := os.MkdirTemp("", "modproxy")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tree := rev
	if subdir != "" {
		tree = rev + ":" + subdir
	}
	archive := exec.Command("git", "-C", clone, "archive", "--format=tar", tree)
	untar := exec.Command("tar", "-x", "-C", tmp)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	if err := archive.Start(); err != nil {
		return err
	}
	if out, err := untar.CombinedOutput(); err != nil {
		return fmt.Errorf("tar: %v: %s", err, out)
	}
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v", tree, err)
	}
	return zip.CreateFromDir(w, mod, tmp)
}
