package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/tools/go/gcexportdata"

	"github.com/ssagen/ssagen/internal/atomicfile"
)

// depCache keeps, between runs, the types of the dependencies the first
// load checked from source (source.go) that cannot change under the same
// file names: the standard library's and those of modules in the module
// cache (a version, no replacement), none importing anything else. One
// entry per set of such dependencies: each one's export data
// (gcexportdata), read back in dependency order into one map so that the
// types they share are one, and the imports their declarations use, so that a run
// with the same dependencies parses and checks only its own packages.
// The key hashes ssagen's cache format, the Go version ssagen was built
// with (its go/types writes the export data), ssagen's own binary (size
// and time: a rebuilt ssagen, which may check differently, starts
// afresh), GOOS, GOARCH, the build flags,
// and each such package's path, folder, and files with their sizes and
// modification times; an entry is never changed, only replaced by one of
// another key.
//
// It lives beside the build cache and is emptied with it: $GOCACHE/ssagen,
// or ssagen under the user cache folder when GOCACHE is unset;
// SSAGEN_CACHE names another folder, or turns it off ("off"), as does
// GOCACHE=off.
type depCache struct {
	file string
	// cacheable marks the listed packages that may be kept.
	cacheable []bool
}

// depEntry is a cache entry's header: the packages it holds, in
// dependency order, the size of each one's export data (which follow the
// header in that order), and the imports its declarations use
// (parseListed's waves follow them).
type depEntry struct {
	Paths   []string
	Sizes   []int
	Imports map[string][]string
}

const depCacheFormat = "ssagen-deps-1"

// openDepCache returns the cache of the listed dependencies, or nil when
// caching is off or none can be kept.
func openDepCache(buildFlags []string, list []*listed) *depCache {
	dir := depCacheDir()
	if dir == "" {
		return nil
	}
	c := &depCache{cacheable: make([]bool, len(list))}
	index := make(map[string]int, len(list))
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\n", depCacheFormat, runtime.Version(), self(), goos(), goarch(), strings.Join(buildFlags, " "))
	any := false
	for i, p := range list {
		index[p.ImportPath] = i
		if !p.DepOnly || !immutable(p) {
			continue
		}
		ok := true
		for _, imp := range p.Imports {
			if j, found := index[p.resolve(imp)]; imp != "C" && imp != "unsafe" && (!found || !c.cacheable[j]) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		fmt.Fprintf(h, "%s\x00%s\n", p.ImportPath, p.Dir)
		for _, f := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
			st, err := os.Stat(filepath.Join(p.Dir, f))
			if err != nil {
				ok = false
				break
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", f, st.Size(), st.ModTime().UnixNano())
		}
		c.cacheable[i] = ok
		any = any || ok
	}
	if !any {
		return nil
	}
	c.file = filepath.Join(dir, "deps-"+hex.EncodeToString(h.Sum(nil))[:32])
	return c
}

// immutable reports a package whose files never change under the same
// names: the standard library's, or one of a module in the module cache.
func immutable(p *listed) bool {
	if p.Standard {
		return true
	}
	m := p.Module
	return m != nil && !m.Main && m.Replace == nil && m.Version != "" && m.Dir != "" &&
		strings.HasPrefix(p.Dir+string(filepath.Separator), m.Dir+string(filepath.Separator))
}

func depCacheDir() string {
	switch v := os.Getenv("SSAGEN_CACHE"); v {
	case "off":
		return ""
	case "":
	default:
		return v
	}
	if gc := os.Getenv("GOCACHE"); gc == "off" {
		return ""
	} else if gc != "" {
		return filepath.Join(gc, "ssagen")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ssagen")
}

// read loads the entry into imports (path → types) and returns what its
// packages' declarations import; ok is false when there is none, or it
// does not read.
func (c *depCache) read(fset *token.FileSet, imports map[string]*types.Package) (pruned map[string][]string, ok bool) {
	if c == nil {
		return nil, false
	}
	data, err := os.ReadFile(c.file)
	if err != nil || len(data) < 8 {
		return nil, false
	}
	if st, err := os.Stat(c.file); err == nil && time.Since(st.ModTime()) > time.Hour {
		now := time.Now()
		_ = os.Chtimes(c.file, now, now) // in use: trim keeps it
	}
	n := binary.LittleEndian.Uint64(data)
	if n > uint64(len(data)-8) {
		return nil, false
	}
	var e depEntry
	if json.Unmarshal(data[8:8+n], &e) != nil {
		return nil, false
	}
	if len(e.Sizes) != len(e.Paths) {
		return nil, false
	}
	read := map[string]*types.Package{}
	body := data[8+n:]
	for i, p := range e.Paths {
		if e.Sizes[i] > len(body) {
			return nil, false
		}
		if _, err := gcexportdata.Read(bytes.NewReader(body[:e.Sizes[i]]), fset, read, p); err != nil {
			return nil, false
		}
		body = body[e.Sizes[i]:]
	}
	for _, p := range e.Paths {
		imports[p] = read[p]
	}
	return e.Imports, true
}

// write replaces the entry with the cacheable packages of list that were
// checked (reached), unless the entry read holds them all already.
func (c *depCache) write(fset *token.FileSet, list []*listed, reached []bool, checked map[string]*types.Package, had map[string][]string) {
	if c == nil {
		return
	}
	var keep []int
	fresh := false
	for i, p := range list {
		if c.cacheable[i] && reached[i] && checked[p.ImportPath] != nil {
			keep = append(keep, i)
			_, ok := had[p.ImportPath]
			fresh = fresh || !ok
		}
	}
	if !fresh {
		return
	}
	e := depEntry{Imports: map[string][]string{}}
	var bundle bytes.Buffer
	left := map[string]bool{} // packages not kept, and those importing them
	for _, i := range keep {
		p := list[i]
		for _, imp := range p.Imports {
			left[p.ImportPath] = left[p.ImportPath] || left[p.resolve(imp)]
		}
		n := bundle.Len()
		if left[p.ImportPath] || safeWrite(&bundle, fset, checked[p.ImportPath]) != nil {
			// A type the export format refuses (cgo's fake "C"): checked
			// from source again next time.
			bundle.Truncate(n)
			left[p.ImportPath] = true
			continue
		}
		e.Paths, e.Sizes = append(e.Paths, p.ImportPath), append(e.Sizes, bundle.Len()-n)
		e.Imports[p.ImportPath] = p.Imports
	}
	hdr, _ := json.Marshal(e)
	_ = os.MkdirAll(filepath.Dir(c.file), 0o755)
	trim(filepath.Dir(c.file))
	_ = atomicfile.Write(c.file, 0o644, func(w io.Writer) error {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(hdr)))
		for _, b := range [][]byte{n[:], hdr, bundle.Bytes()} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// trimAfter is how long an entry no run read stays, as the build cache
// keeps its entries five days.
const trimAfter = 5 * 24 * time.Hour

// trim removes the entries of dir no run has read for trimAfter.
func trim(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "deps-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > trimAfter {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func safeWrite(w io.Writer, fset *token.FileSet, pkg *types.Package) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("writing export data: %v", r)
		}
	}()
	return gcexportdata.Write(w, fset, pkg)
}

// self identifies the running binary by its size and modification time.
func self() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d %d", st.Size(), st.ModTime().UnixNano())
}

// goos is the operating system go list and the compiler target.
func goos() string {
	if o := os.Getenv("GOOS"); o != "" {
		return o
	}
	return runtime.GOOS
}
