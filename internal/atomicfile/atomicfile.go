// Package atomicfile replaces a file's contents through a temporary file
// in the same folder and a rename, so that a reader — or a run that fails
// half-way — sees the old file whole or the new one, never a part. Every
// file ssagen writes (generated code, vet's fixes, reports, the installed
// plugin) is written this one way.
package atomicfile

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what write writes, with mode perm,
// creating its folder. On error the previous file is left as it was.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteFile is Write with the bytes in hand.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Replace rewrites an existing file, keeping its mode, and does nothing
// when its contents are data already.
func Replace(path string, data []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return WriteFile(path, data, st.Mode().Perm())
}
