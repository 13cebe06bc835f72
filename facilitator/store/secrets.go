package store

import (
	"context"
	"time"
)

// Secrets keeps named random secrets that every instance sharing the store
// gets alike (the key that signs access cookies).
type Secrets interface {
	// Secret returns the secret called name, made by gen and stored the
	// first time it is asked for. Instances asking at once get the same
	// one: the first stored wins.
	Secret(ctx context.Context, name string, gen func() ([]byte, error)) ([]byte, error)
}

// SecretVersion is one generation of a rotated secret.
type SecretVersion struct {
	// Gen is the generation, from 1; the highest is the newest.
	Gen int
	// Value is the secret.
	Value []byte
	// Created is when it was stored, by the store's clock: the newest
	// signs from then, and the one before stops signing.
	Created time.Time
}

// RotatingSecrets keeps the generations of secrets that are rotated: the
// newest signs, older ones are honoured until what they signed expires.
type RotatingSecrets interface {
	Secrets
	// SecretVersions lists name's generations, oldest first; none when
	// there is no secret of that name yet.
	SecretVersions(ctx context.Context, name string) ([]SecretVersion, error)
	// RotateSecret adds a generation made by gen as the newest (making
	// the first when there is none) and removes the older generations for
	// which keep, given the time each stopped signing (the next one's
	// Created), says false. Rotations at once are serialised.
	RotateSecret(ctx context.Context, name string, gen func() ([]byte, error), keep func(v SecretVersion, retired time.Time) bool) (added SecretVersion, dropped []SecretVersion, err error)
}
