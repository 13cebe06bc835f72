package main

import (
	"reflect"
	"testing"
)

func TestComponents(t *testing.T) {
	g := func(pairs ...string) map[string]map[string]bool {
		e := map[string]map[string]bool{}
		for i := 0; i < len(pairs); i += 2 {
			if e[pairs[i]] == nil {
				e[pairs[i]] = map[string]bool{}
			}
			e[pairs[i]][pairs[i+1]] = true
		}
		return e
	}
	tests := []struct {
		name  string
		edges map[string]map[string]bool
		want  [][]string
	}{
		{"none", g(), nil},
		{"one way", g("serve.go", "checkout.go", "checkout.go", "reply.go", "serve.go", "reply.go"), nil},
		{"two files", g("a.go", "b.go", "b.go", "a.go"), [][]string{{"a.go", "b.go"}}},
		{"three through a leaf", g("seller.go", "serve.go", "serve.go", "checkout.go", "checkout.go", "seller.go", "checkout.go", "reply.go"),
			[][]string{{"checkout.go", "seller.go", "serve.go"}}},
		{"two apart", g("a.go", "b.go", "b.go", "a.go", "c.go", "d.go", "d.go", "c.go", "b.go", "c.go"),
			[][]string{{"c.go", "d.go"}, {"a.go", "b.go"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := components(tt.edges); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("components = %v, want %v", got, tt.want)
			}
		})
	}
}
