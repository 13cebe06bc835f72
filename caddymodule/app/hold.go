package app

import "errors"

// Hold keeps this config's shared facilitator, devnet and stores open
// until release is called. Caddy may clean the app up before the modules
// that use it; one whose Cleanup still needs them (a payment channel
// route's last claim round) holds them. Call it in Provision.
func (a *App) Hold() (release func() error) {
	keys := append([]string(nil), a.keys...)
	for _, k := range keys {
		pool.LoadOrStore(k, nil) // present (the app holds it): one more reference
	}
	return func() error {
		var errs []error
		for i := len(keys) - 1; i >= 0; i-- {
			if _, err := pool.Delete(keys[i]); err != nil {
				errs = append(errs, err)
			}
		}
		keys = nil
		return errors.Join(errs...)
	}
}
