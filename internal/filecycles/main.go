// Command filecycles checks that calls between the files of each package
// run one way (docs/layout.md, "Calls between files"): it builds, per
// package, the graph of calls from a function in one file to a function
// or method declared in another (an interface method counts as declared
// where its interface is), and prints each cycle with its edges. It exits
// 1 when there is one. Tests are not read.
//
// Usage, from the module root: go run ./internal/filecycles [packages]
// (default ./...). .ci/run runs it after .ci/layers.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// listed is what go list tells of a package.
type listed struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	Module                  *struct{ Main bool }
}

func main() {
	patterns := os.Args[1:]
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := list(patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "filecycles:", err)
		os.Exit(2)
	}
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	found := false
	for _, p := range pkgs {
		if p.Module == nil || !p.Module.Main || len(p.GoFiles) == 0 {
			continue
		}
		cycles, edges, err := fileCycles(p, exports)
		if err != nil {
			fmt.Fprintf(os.Stderr, "filecycles: %s: %v\n", p.ImportPath, err)
			os.Exit(2)
		}
		for _, c := range cycles {
			found = true
			fmt.Printf("%s: cycle of calls between files: %s\n", p.ImportPath, strings.Join(c, " "))
			for _, a := range c {
				for _, b := range c {
					if edges[a][b] {
						fmt.Printf("  %s -> %s\n", a, b)
					}
				}
			}
		}
	}
	if found {
		fmt.Println("move what several files call to a leaf file below them (docs/layout.md, Calls between files)")
		os.Exit(1)
	}
}

// list runs go list on the patterns, with their dependencies' export data.
func list(patterns []string) ([]listed, error) {
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Module"}, patterns...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// fileCycles type-checks a package from source against its imports'
// export data and returns the cycles (strongly connected components of
// more than one file) of its graph of calls between files.
func fileCycles(p listed, exports map[string]string) ([][]string, map[string]map[string]bool, error) {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e, ok := exports[path]
		if !ok || e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	var files []*ast.File
	for _, n := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, n), nil, 0)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info)
	if err != nil {
		return nil, nil, err
	}
	edges := map[string]map[string]bool{}
	for _, f := range files {
		from := filepath.Base(fset.Position(f.Pos()).Filename)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var obj types.Object
			switch fn := ast.Unparen(call.Fun).(type) {
			case *ast.Ident:
				obj = info.Uses[fn]
			case *ast.SelectorExpr:
				if s := info.Selections[fn]; s != nil {
					obj = s.Obj()
				} else {
					obj = info.Uses[fn.Sel]
				}
			}
			fn, ok := obj.(*types.Func)
			if !ok || fn.Pkg() != pkg || !fn.Pos().IsValid() {
				return true
			}
			if to := filepath.Base(fset.Position(fn.Pos()).Filename); to != from {
				if edges[from] == nil {
					edges[from] = map[string]bool{}
				}
				edges[from][to] = true
			}
			return true
		})
	}
	return components(edges), edges, nil
}

// components returns the strongly connected components of more than one
// node (Tarjan's algorithm), each sorted, in a stable order.
func components(edges map[string]map[string]bool) [][]string {
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		var succ []string
		for w := range edges[v] {
			succ = append(succ, w)
		}
		sort.Strings(succ)
		for _, w := range succ {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var c []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			c = append(c, w)
			if w == v {
				break
			}
		}
		if len(c) > 1 {
			sort.Strings(c)
			out = append(out, c)
		}
	}
	var nodes []string
	for v := range edges {
		nodes = append(nodes, v)
	}
	sort.Strings(nodes)
	for _, v := range nodes {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return out
}
