package doctor

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// MatchSeparator compares a token's DOMAIN_SEPARATOR() with the separator
// of the domain d: what d hashes to, and whether they are equal. A domain
// that differs from the token's makes every signature look invalid.
func MatchSeparator(token common.Hash, d evm.Domain) (want common.Hash, ok bool, err error) {
	want, err = evm.DomainSeparator(d)
	if err != nil {
		return common.Hash{}, false, err
	}
	return want, want == token, nil
}

// eip5267ABI is EIP-5267's eip712Domain(), which newer tokens answer with
// their whole domain.
var eip5267ABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"eip712Domain","stateMutability":"view","inputs":[],"outputs":[
 {"name":"fields","type":"bytes1"},{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},
 {"name":"verifyingContract","type":"address"},{"name":"salt","type":"bytes32"},{"name":"extensions","type":"uint256[]"}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

// TokenDomain is what a token and its chain say of its EIP-712 domain.
type TokenDomain struct {
	// HasCode: the token's address holds code.
	HasCode bool
	// ChainID is the chain's eth_chainId.
	ChainID *big.Int
	// Name and Version are the token's name() and version(), "" with
	// NameErr / VersionErr when it did not answer a string.
	Name, Version       string
	NameErr, VersionErr error
	// Separator is its DOMAIN_SEPARATOR(), unless SeparatorErr.
	Separator    common.Hash
	SeparatorErr error
	// EIP5267 is the domain its eip712Domain() answers, nil without one.
	EIP5267 *evm.Domain
}

// ReadTokenDomain reads, in one batch, the token's code, the chain ID,
// the token's name(), version(), DOMAIN_SEPARATOR() and eip712Domain().
func ReadTokenDomain(ctx context.Context, b Batcher, token common.Address) (*TokenDomain, error) {
	var code hexutil.Bytes
	var chainID hexutil.Big
	elems := []rpc.BatchElem{
		{Method: "eth_getCode", Args: []any{token, "latest"}, Result: &code},
		{Method: "eth_chainId", Result: &chainID},
	}
	methods := []string{"name", "version", "DOMAIN_SEPARATOR"}
	outs := make([]*hexutil.Bytes, 0, 4)
	for _, m := range methods {
		el, out := evm.ViewCall(token, m)
		elems, outs = append(elems, el), append(outs, out)
	}
	data, _ := eip5267ABI.Pack("eip712Domain")
	el, out := evm.CallData(token, data)
	elems, outs = append(elems, el), append(outs, out)
	if err := b.Batch(ctx, elems); err != nil {
		return nil, err
	}
	if elems[0].Error != nil {
		return nil, fmt.Errorf("eth_getCode %s: %w", token.Hex(), elems[0].Error)
	}
	if elems[1].Error != nil {
		return nil, fmt.Errorf("eth_chainId: %w", elems[1].Error)
	}
	td := &TokenDomain{HasCode: len(code) > 0, ChainID: (*big.Int)(&chainID)}
	td.Name, td.NameErr = unpackString(token, "name", *outs[0], elems[2].Error)
	td.Version, td.VersionErr = unpackString(token, "version", *outs[1], elems[3].Error)
	if td.SeparatorErr = elems[4].Error; td.SeparatorErr == nil {
		td.Separator, td.SeparatorErr = evm.UnpackDomainSeparator(token, *outs[2])
	}
	if elems[5].Error == nil {
		if vals, err := eip5267ABI.Unpack("eip712Domain", *outs[3]); err == nil && len(vals) == 7 {
			td.EIP5267 = &evm.Domain{Name: vals[1].(string), Version: vals[2].(string), ChainID: vals[3].(*big.Int), VerifyingContract: vals[4].(common.Address)}
		}
	}
	return td, nil
}

// unpackString reads a string-returning view's answer, or the call's
// error.
func unpackString(token common.Address, method string, out []byte, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return evm.UnpackString(token, method, out)
}

// CheckDomain compares a network's configured EIP-712 domain (cfg: an
// empty Name or Version is read from the token, as the facilitator does
// at start) with what the token says: one finding per field that
// differs, naming both values, or one OK finding.
func CheckDomain(network string, cfg evm.Domain, td *TokenDomain) []Finding {
	token := cfg.VerifyingContract.Hex()
	base := Finding{Network: network, Scheme: AllSchemes, Address: token}
	if !td.HasCode {
		f := base
		f.Check, f.Subject, f.Status = KindToken, "token "+token, Missing
		f.Detail = "no contract at the token's address " + token
		f.Fix = fmt.Sprintf("set the network's token to the token's address on chain %s (the configured address holds no code)", td.ChainID)
		return []Finding{f}
	}
	var out []Finding
	field := func(name, tokenSays, configSays, fix string) {
		f := base
		f.Check, f.Subject, f.Status, f.Field, f.Token, f.Config = KindDomain, name, Missing, name, tokenSays, configSays
		f.Detail = fmt.Sprintf("the token's EIP-712 %s is %q, the configuration's %q", name, tokenSays, configSays)
		f.Fix = fix
		out = append(out, f)
	}
	eff := cfg
	// The chain and the token, as the token (EIP-5267) or the chain says.
	chainID := td.ChainID
	if td.EIP5267 != nil && td.EIP5267.ChainID != nil {
		chainID = td.EIP5267.ChainID
	}
	if cfg.ChainID != nil && chainID != nil && cfg.ChainID.Cmp(chainID) != 0 {
		field("chainId", chainID.String(), cfg.ChainID.String(), "set the network's chain_id to "+chainID.String()+", or point its rpc at the chain "+cfg.ChainID.String())
	}
	if td.EIP5267 != nil && td.EIP5267.VerifyingContract != cfg.VerifyingContract {
		field("verifyingContract", td.EIP5267.VerifyingContract.Hex(), token, "the token signs under another contract's domain (a proxy?): set the network's token to "+td.EIP5267.VerifyingContract.Hex())
	}
	tokenName, nameErr := td.Name, td.NameErr
	tokenVersion, versionErr := td.Version, td.VersionErr
	if td.EIP5267 != nil {
		tokenName, nameErr, tokenVersion, versionErr = td.EIP5267.Name, nil, td.EIP5267.Version, nil
	}
	for _, fl := range []struct {
		name, opt string
		cfg       *string
		tok       string
		err       error
	}{{"name", "eip712_name", &eff.Name, tokenName, nameErr}, {"version", "eip712_version", &eff.Version, tokenVersion, versionErr}} {
		switch {
		case *fl.cfg == "" && fl.err != nil:
			f := base
			f.Check, f.Subject, f.Status, f.Field = KindDomain, fl.name, Missing, fl.name
			f.Detail = fmt.Sprintf("the token does not answer %s() (%v) and the configuration sets none", fl.name, fl.err)
			f.Fix = "set the network's " + fl.opt + " to the token's EIP-712 " + fl.name
			out = append(out, f)
		case *fl.cfg == "":
			*fl.cfg = fl.tok // read from the token, as at start
		case fl.err == nil && fl.tok != *fl.cfg:
			field(fl.name, fl.tok, *fl.cfg, fmt.Sprintf("set the network's %s to %q (or leave it empty to read it from the token)", fl.opt, fl.tok))
		}
	}
	if len(out) > 0 {
		return out
	}
	f := base
	f.Check, f.Subject = KindDomain, "domain"
	if td.SeparatorErr != nil {
		f.Status, f.Detail = Warning, fmt.Sprintf("name %q, version %q; the token's DOMAIN_SEPARATOR() could not be read to check them (%v)", eff.Name, eff.Version, td.SeparatorErr)
		f.Fix = "check the domain against the token's source: a wrong one makes every signature look invalid"
		return []Finding{f}
	}
	want, ok, err := MatchSeparator(td.Separator, eff)
	switch {
	case err != nil:
		f.Status, f.Detail = Missing, err.Error()
	case !ok:
		f.Status, f.Field, f.Token, f.Config = Missing, "DOMAIN_SEPARATOR", td.Separator.Hex(), want.Hex()
		f.Detail = fmt.Sprintf("the token's DOMAIN_SEPARATOR() %s is not the configured domain's %s (name %q, version %q, chainId %s, verifyingContract %s)",
			td.Separator.Hex(), want.Hex(), eff.Name, eff.Version, eff.ChainID, token)
		f.Fix = "fix eip712_name / eip712_version, or leave them empty to read them from the token"
	default:
		f.Status = OK
		f.Detail = fmt.Sprintf("name %q, version %q, chainId %s, verifyingContract %s match the token's DOMAIN_SEPARATOR()", eff.Name, eff.Version, eff.ChainID, token)
	}
	return []Finding{f}
}
