// Package input holds legal API constructs that once made ssagen crash,
// send the wrong JSON or refuse the input: each type is named for what it
// exercises. The golden in ../want is compiled and exercised by
// ../want/behaviour_test.go.
// +groupName=legal.example.com
package input
