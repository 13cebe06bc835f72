// Package paytrace makes the spans of a payment under Caddy's tracing: a
// step's span is a child of the request's span, made with that span's own
// tracer provider (Caddy registers none globally). When the request's span
// is not recording (no `tracing` in the site, or not sampled), nothing is
// made and nothing allocated: Start returns the context as it was and a
// zero Span whose methods do nothing.
//
// Attributes are under x402. (OpenTelemetry has no payments namespace);
// a refusal sets the span's status to error and error.type to its reason
// code. No secret, signature or payment header goes into an attribute.
package paytrace

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Scope is the instrumentation scope of every span this module makes.
const Scope = "github.com/caddy-x402/caddy-x402"

// The attribute keys.
const (
	KeyScheme      = "x402.scheme"      // the payment's scheme (exact, upto, batch-settlement)
	KeyNetwork     = "x402.network"     // the network of the option paid (as the route names it)
	KeyPayer       = "x402.payer"       // the payer's address
	KeyAmount      = "x402.amount"      // the price asked or the amount authorized, in smallest units
	KeyCharged     = "x402.charged"     // what a metered payment was charged, in smallest units
	KeyTransaction = "x402.transaction" // the settlement's transaction hash, once known
	KeyRoute       = "x402.route"       // the route's label (the paywall), or the facilitator API's path
	KeyErrorType   = "error.type"       // a refusal's reason code (OpenTelemetry's error.type)
)

// Span is one step's span, or nothing (the zero Span) when the request is
// not traced. Its methods are safe on the zero Span.
type Span struct{ s trace.Span }

// Start starts a child span named name of ctx's span, with that span's
// tracer provider, and returns the context carrying it. When ctx's span
// is not recording it returns ctx and the zero Span.
func Start(ctx context.Context, name string) (context.Context, Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, Span{}
	}
	ctx, s := parent.TracerProvider().Tracer(Scope).Start(ctx, name)
	return ctx, Span{s}
}

// Root starts in ctx a span named name with no parent, from the tracer
// provider tp (the provider of a request seen earlier: work without a
// request, such as a claim round, gets a trace of its own). A nil tp
// gives ctx and the zero Span.
func Root(ctx context.Context, tp trace.TracerProvider, name string) (context.Context, Span) {
	if tp == nil {
		return ctx, Span{}
	}
	c, s := tp.Tracer(Scope).Start(ctx, name, trace.WithNewRoot())
	if !s.IsRecording() {
		return ctx, Span{}
	}
	return c, Span{s}
}

// Provider is the tracer provider of ctx's span when it is recording, else
// nil: what a route keeps to give its rounds (Root) traces of their own.
func Provider(ctx context.Context) trace.TracerProvider {
	s := trace.SpanFromContext(ctx)
	if !s.IsRecording() {
		return nil
	}
	return s.TracerProvider()
}

// FromContext is ctx's span when it is recording, else the zero Span: a
// step that did not start the span sets its outcome on it (a refusal
// answered by the route's replies).
func FromContext(ctx context.Context) Span {
	s := trace.SpanFromContext(ctx)
	if !s.IsRecording() {
		return Span{}
	}
	return Span{s}
}

// On tells whether the span records: attributes that cost something to
// compute are set only then.
func (s Span) On() bool { return s.s != nil }

// End ends the span.
func (s Span) End() {
	if s.s != nil {
		s.s.End()
	}
}

// Rename names the span name (a name known only once it started).
func (s Span) Rename(name string) {
	if s.s != nil {
		s.s.SetName(name)
	}
}

// Set sets a string attribute; an empty value is not set.
func (s Span) Set(key, value string) {
	if s.s != nil && value != "" {
		s.s.SetAttributes(attribute.String(key, value))
	}
}

// SetInt sets an integer attribute.
func (s Span) SetInt(key string, value int64) {
	if s.s != nil {
		s.s.SetAttributes(attribute.Int64(key, value))
	}
}

// Refuse marks the span refused: status error with the reason's text,
// error.type its code (x402.CodeOf). An empty code does nothing.
func (s Span) Refuse(code, text string) {
	if s.s != nil && code != "" {
		s.s.SetStatus(codes.Error, text)
		s.s.SetAttributes(attribute.String(KeyErrorType, code))
	}
}

// Fail marks the span failed by err (nothing the payer did: a facilitator
// or store out of reach): status error with err's text, error.type
// errType. A nil err does nothing.
func (s Span) Fail(errType string, err error) {
	if s.s != nil && err != nil {
		s.s.SetStatus(codes.Error, err.Error())
		s.s.SetAttributes(attribute.String(KeyErrorType, errType))
	}
}

// Event adds an event named name with string attributes given as key,
// value pairs.
func (s Span) Event(name string, kv ...string) { s.EventAt(time.Time{}, name, kv...) }

// EventAt is Event at time t (the zero t is now).
func (s Span) EventAt(t time.Time, name string, kv ...string) {
	if s.s == nil {
		return
	}
	attrs := make([]attribute.KeyValue, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		attrs = append(attrs, attribute.String(kv[i], kv[i+1]))
	}
	opts := []trace.EventOption{trace.WithAttributes(attrs...)}
	if !t.IsZero() {
		opts = append(opts, trace.WithTimestamp(t))
	}
	s.s.AddEvent(name, opts...)
}

// Context is the span's context (zero for the zero Span): what a step
// handed to another goroutine links to or starts its children from.
func (s Span) Context() trace.SpanContext {
	if s.s == nil {
		return trace.SpanContext{}
	}
	return s.s.SpanContext()
}

// Carried is a span handed to another goroutine (the engine's send loop
// and receipt watcher) to start children of with Child, also after the
// span ended. The zero Carried starts nothing.
type Carried struct {
	tp trace.TracerProvider
	sc trace.SpanContext
}

// Carry is what another goroutine needs to start children of the span.
func (s Span) Carry() Carried {
	if s.s == nil {
		return Carried{}
	}
	return Carried{tp: s.s.TracerProvider(), sc: s.s.SpanContext()}
}

// On tells whether the carried span was recording.
func (c Carried) On() bool { return c.tp != nil }

// Child starts a span named name, child of the carried span; the zero
// Carried gives the zero Span.
func Child(parent Carried, name string) (context.Context, Span) {
	return ChildFrom(parent, name, time.Time{})
}

// ChildFrom is Child for a span that started at start (a step timed
// before its outcome said whether it is worth a span); the zero start is
// now.
func ChildFrom(parent Carried, name string, start time.Time) (context.Context, Span) {
	if parent.tp == nil {
		return context.Background(), Span{}
	}
	var opts []trace.SpanStartOption
	if !start.IsZero() {
		opts = append(opts, trace.WithTimestamp(start))
	}
	ctx, s := parent.tp.Tracer(Scope).Start(trace.ContextWithSpanContext(context.Background(), parent.sc), name, opts...)
	return ctx, Span{s}
}

// IDs is a zap field with the trace and span ids of ctx's span, named as
// in Caddy's access log (traceID, spanID), so that a payment's log lines
// join its access log line and its trace; zap.Skip() when ctx has none.
func IDs(ctx context.Context) zap.Field {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return zap.Skip()
	}
	return zap.Inline(ids(sc))
}

// IDs is a zap field with the carried span's trace and span ids, as the
// package's IDs; zap.Skip() for the zero Carried.
func (c Carried) IDs() zap.Field {
	if !c.sc.IsValid() {
		return zap.Skip()
	}
	return zap.Inline(ids(c.sc))
}

// ids writes a span context's ids as two fields.
type ids trace.SpanContext

// MarshalLogObject implements zapcore.ObjectMarshaler.
func (c ids) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	sc := trace.SpanContext(c)
	enc.AddString("traceID", sc.TraceID().String())
	enc.AddString("spanID", sc.SpanID().String())
	return nil
}
