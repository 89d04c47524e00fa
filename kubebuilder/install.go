package kubebuilder

import (
	"fmt"
	"github.com/ssagen/ssagen/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
)

// PluginsRoot is where Kubebuilder v4 looks for external plugins:
// $EXTERNAL_PLUGINS_PATH, else $XDG_CONFIG_HOME/kubebuilder/plugins, else
// the user's configuration folder (~/.config on Linux, ~/Library/Application
// Support on macOS). getenv and home are the process's, passed in for tests.
func PluginsRoot(goos string, getenv func(string) string, home string) (string, error) {
	if p := getenv("EXTERNAL_PLUGINS_PATH"); p != "" {
		return p, nil
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "kubebuilder", "plugins"), nil
	}
	switch goos {
	case "linux":
		return filepath.Join(home, ".config", "kubebuilder", "plugins"), nil
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "kubebuilder", "plugins"), nil
	}
	return "", fmt.Errorf("kubebuilder runs external plugins on linux and darwin only, not %s", goos)
}

// PluginPath is the executable's path under root: Kubebuilder takes the
// plugin's name and version from the two folders and runs the file named
// after the plugin.
func PluginPath(root string) string {
	return filepath.Join(root, "ssagen.io", "v1-alpha", "ssagen.io")
}

// Install copies the executable exe to PluginPath(root), through a temp
// file and a rename, so that a kubebuilder running meanwhile never sees
// half of it. It returns the path written.
func Install(exe, root string) (string, error) {
	dst := PluginPath(root)
	src, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer src.Close()
	err = atomicfile.Write(dst, 0o755, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
	if err != nil {
		return "", err
	}
	return dst, nil
}
