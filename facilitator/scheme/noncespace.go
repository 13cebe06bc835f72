package scheme

// NonceSpacer is a Mechanism whose authorizations' nonces are not the
// token's EIP-3009 ones (Permit2's nonceBitmap: permit2.NonceSpace): they
// are held, reserved and journaled apart from EIP-3009 authorizations of
// the same payer and nonce (engine.Config.Spaces, the core's
// AuthorizationKey). The one place a scheme's nonce space is said.
type NonceSpacer interface {
	NonceSpace() string
}

// NonceSpaceOf is the nonce space of m's authorizations: its NonceSpace,
// "" (EIP-3009's) for a Mechanism that is no NonceSpacer.
func NonceSpaceOf(m Mechanism) string {
	if s, ok := m.(NonceSpacer); ok {
		return s.NonceSpace()
	}
	return ""
}

// NonceSpace is the nonce space of the authorizations of the scheme (or
// flavour) registered under name, on any family; "" (EIP-3009's) for a
// name not registered.
func NonceSpace(name string) string {
	for _, m := range All() {
		if m.Name() == name {
			return NonceSpaceOf(m)
		}
	}
	return ""
}
