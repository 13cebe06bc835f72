package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Defaults of the MCP bounds.
const (
	// DefaultMaxBody bounds a JSON-RPC request.
	DefaultMaxBody = 1 << 20
	// DefaultMaxAnswer bounds the server's answer to a priced call or
	// tools/list.
	DefaultMaxAnswer = 16 << 20
	// DefaultCallTimeout bounds the time the server takes to answer a
	// priced call, to the end of its answer (an event stream included).
	DefaultCallTimeout = 2 * time.Minute
	// maxLearnt bounds a tool's description and input schema learnt
	// from a tools/list answer.
	maxLearnt = 16 << 10
)

// Tool is a priced tool of an MCP route.
type Tool struct {
	// Name is the tool's name as the MCP server lists it, matched
	// exactly (case-sensitive).
	Name string `json:"name"`
	// Price is the price of one call in whole tokens, such as "0.01",
	// converted with each network's token decimals.
	Price string `json:"price"`
	// Description is the tool's description for buyers and discovery.
	// Default: the description the server's tools/list gives.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the tool's arguments for
	// discovery. Default: the one the server's tools/list gives, once a
	// tools/list answer has passed through.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// Config is what a route sells over MCP, the x402 directive's mcp_tool,
// mcp_max_body, mcp_max_answer and mcp_call_timeout (embedded in the
// paywall's Handler, so these are fields of http.handlers.x402).
type Config struct {
	// MCPTools are the priced tools of an MCP route. With any, the route
	// is an MCP endpoint: a tools/call of one of them is charged its
	// price; every other method and tool, GET and DELETE pass free. The
	// route then has no price or amount of its own.
	MCPTools []Tool `json:"mcp_tools,omitempty"`
	// MCPMaxBody bounds a JSON-RPC request's body, in bytes; past it the
	// answer is HTTP 413 with a JSON-RPC error. Default: 1 MiB.
	MCPMaxBody int64 `json:"mcp_max_body,omitempty"`
	// MCPMaxAnswer bounds the MCP server's answer to a priced call (or
	// tools/list), read whole to find the result, in bytes. Default: 16 MiB.
	MCPMaxAnswer int64 `json:"mcp_max_answer,omitempty"`
	// MCPCallTimeout bounds the time the MCP server takes to answer a
	// priced call, to the end of its answer: an event stream that has not
	// ended by then is cut, and the call is answered as one that got no
	// result (not settled after; paid but not delivered before), unless
	// the response to the call came within it. Default: 2m.
	MCPCallTimeout caddy.Duration `json:"mcp_call_timeout,omitempty"`
}

// Enabled reports whether the route is an MCP endpoint (it has priced
// tools).
func (c *Config) Enabled() bool { return len(c.MCPTools) > 0 }

// ValidateBounds checks the bounds of a route without priced tools: they
// bound an MCP route only.
func (c *Config) ValidateBounds() error {
	if c.MCPMaxBody != 0 || c.MCPMaxAnswer != 0 {
		return errors.New("x402: mcp_max_body and mcp_max_answer need mcp_tool lines: they bound an MCP route")
	}
	if c.MCPCallTimeout != 0 {
		return errors.New("x402: mcp_call_timeout needs mcp_tool lines: it bounds a priced tool call of an MCP route")
	}
	return nil
}

// ValidateTools checks the priced tools and the bounds of an MCP route.
func (c *Config) ValidateTools() error {
	seen := map[string]bool{}
	for _, t := range c.MCPTools {
		switch {
		case t.Name == "" || len(t.Name) > 128:
			return errors.New("x402: mcp_tool needs the tool's name (1 to 128 characters)")
		case seen[t.Name]:
			return fmt.Errorf("x402: mcp_tool %q is listed twice", t.Name)
		case t.Price == "" || httpx.HasPlaceholder(t.Price):
			return fmt.Errorf("x402: mcp_tool %q needs a fixed price in whole tokens, such as 0.01", t.Name)
		}
		seen[t.Name] = true
		_, frac, _ := strings.Cut(t.Price, ".")
		if _, err := x402.ParsePrice(t.Price, uint8(min(len(frac), 77))); err != nil {
			return fmt.Errorf("x402: mcp_tool %q: %v; write the price in whole tokens, such as 0.01", t.Name, err)
		}
		if len(t.InputSchema) > 0 {
			var o map[string]any
			if json.Unmarshal(t.InputSchema, &o) != nil || o == nil {
				return fmt.Errorf("x402: mcp_tool %q: input_schema must be a JSON object (the tool's JSON Schema)", t.Name)
			}
		}
	}
	if c.MCPMaxBody < 0 || c.MCPMaxAnswer < 0 {
		return errors.New("x402: mcp_max_body and mcp_max_answer must be positive sizes")
	}
	if c.MCPCallTimeout < 0 {
		return errors.New("x402: mcp_call_timeout must be a positive duration, such as 2m")
	}
	return nil
}

// UnmarshalOption reads mcp_tool, mcp_max_body, mcp_max_answer and
// mcp_call_timeout, the option opt of the x402 directive.
//
//	mcp_tool <name> <price> [{
//	    description <text>
//	    input_schema <json or file>
//	}]
//	mcp_max_body <size>
//	mcp_max_answer <size>
//	mcp_call_timeout <duration>
func (c *Config) UnmarshalOption(d *caddyfile.Dispenser, opt string) error {
	switch opt {
	case "mcp_call_timeout":
		v, err := httpx.OneArg(d)
		if err != nil {
			return err
		}
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur < time.Second {
			return d.Errf("x402: mcp_call_timeout %q: want a duration of at least 1s, such as 2m", v)
		}
		c.MCPCallTimeout = caddy.Duration(dur)
		return nil
	case "mcp_max_body", "mcp_max_answer":
		v, err := httpx.OneArg(d)
		if err != nil {
			return err
		}
		n, err := humanize.ParseBytes(v)
		if err != nil || n == 0 || n > 1<<40 {
			return d.Errf("x402: %s: %q is not a size such as 1MiB", opt, v)
		}
		if opt == "mcp_max_body" {
			c.MCPMaxBody = int64(n)
		} else {
			c.MCPMaxAnswer = int64(n)
		}
		return nil
	}
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.Err("x402: mcp_tool takes a tool name and its price in whole tokens, such as: mcp_tool get_weather 0.01")
	}
	t := Tool{Name: args[0], Price: args[1]}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		v, err := httpx.OneArg(d)
		if err != nil {
			return err
		}
		switch sub {
		case "description":
			t.Description = v
		case "input_schema":
			raw, err := httpx.JSONArg(d, "input_schema", v)
			if err != nil {
				return err
			}
			t.InputSchema = raw
		default:
			return d.Errf("x402: mcp_tool: unrecognized option %q (description, input_schema)", sub)
		}
	}
	c.MCPTools = append(c.MCPTools, t)
	return nil
}
