package devnet

// The chain's fixed facts: chain ID, network name, addresses, the TEST-ONLY keys of the genesis
// accounts and their amounts.

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// ChainID is the chain id of Cronos testnet, which the development chain
// uses too.
const ChainID = 338

// Network is the x402 network name of the chain the devnet replicates.
const Network = "cronos-testnet"

// TokenAddress is the address of devUSDC.e on Cronos testnet, where the
// devnet places its token.
var TokenAddress = common.HexToAddress("0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0")

// FactoryAddress is where the devnet places its SmartWalletFactory:
// the last 20 bytes of keccak256("caddy-x402 devnet smart wallet factory").
var FactoryAddress = common.BytesToAddress(crypto.Keccak256([]byte("caddy-x402 devnet smart wallet factory")))

// The canonical addresses where the devnet places Permit2 and the x402
// Permit2 proxies (package evm's).
var (
	Permit2Address           = permit2.Address
	ExactPermit2ProxyAddress = permit2.ExactProxyAddress
	UptoPermit2ProxyAddress  = permit2.UptoProxyAddress
)

// The canonical addresses where the devnet places the batch-settlement
// contracts (package batch's).
var (
	BatchSettlementAddress  = batch.SettlementAddress
	ERC3009CollectorAddress = batch.ERC3009CollectorAddress
	Permit2CollectorAddress = batch.Permit2CollectorAddress
)

// Multicall3Address is Multicall3's canonical address, where the devnet
// places its Multicall3 (the x402 reference facilitators batch their chain
// reads through it).
var Multicall3Address = common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11")

// Salts of buyer1's smart-contract wallets.
const (
	// DeployedWalletSalt is the salt of buyer1's deployed wallet.
	DeployedWalletSalt = 0
	// UndeployedWalletSalt is the salt of buyer1's wallet that has tokens
	// but no code yet.
	UndeployedWalletSalt = 1
)

// The token's metadata; name and version make up its EIP-712 domain.
const (
	TokenName     = "Bridged USDC (Stargate)"
	TokenSymbol   = "devUSDC.e"
	TokenVersion  = "1"
	TokenDecimals = 6
)

// TEST-ONLY private keys of the genesis accounts (see the package comment).
// Each is keccak256 of the string in its comment.
const (
	// SignerPrivateKey is the facilitator's gas payer:
	// keccak256("caddy-x402 devnet signer"), address
	// 0xBdBCA70E4Ef5738f447dE847944162095dAb17cD.
	SignerPrivateKey = "0x4484399f9ff44c15830151ab53cfff61a32dd4037ee9db7b2b7d7373de7e59dd"
	// MinterPrivateKey is the token's minter:
	// keccak256("caddy-x402 devnet minter"), address
	// 0xA92298c47882F7006D39649D4Da570213dA824b6.
	MinterPrivateKey = "0x7580746ead67e8856251abfa18ec220f50e1bba46519382bad25ef58432ab9f1"
	// Buyer1PrivateKey is keccak256("caddy-x402 devnet buyer 1"), address
	// 0x94E3F6Ec28A2D73543E60b9442c3ebEEEB63c70c.
	Buyer1PrivateKey = "0x087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4"
	// Buyer2PrivateKey is keccak256("caddy-x402 devnet buyer 2"), address
	// 0x3944750Df39989e7ADf241a27cF7F53a5Ede6010.
	Buyer2PrivateKey = "0xb4ab404df18071790bd868ed2c249447bb5109c57fad7cb327e829f600070871"
	// Buyer3PrivateKey is keccak256("caddy-x402 devnet buyer 3"), address
	// 0xf1571cE813EF62a4c616B6f13F92186035fc992D.
	Buyer3PrivateKey = "0x30f4e601e37ac8befdfce20c8ef9289b04f923cabb5fea84d0fe28edbfb2bb6b"
	// Buyer4PrivateKey is keccak256("caddy-x402 devnet buyer 4"), address
	// 0xFEA963a230FDEEE8258346C9336294985888cC5f.
	Buyer4PrivateKey = "0x3425f600590a0377f0ab1cb19672c62a9ebf391ba528e6d75c8047bf7e79fe28"
	// Buyer5PrivateKey is keccak256("caddy-x402 devnet buyer 5"), address
	// 0x3b0eDb120Cdc97047880d85AA160B9D6127b4100.
	Buyer5PrivateKey = "0xe26ac5a484673f83d3f905fc8f74869d1784bb41b671fd71a75fd21526d19e71"
)

// Genesis amounts.
var (
	// SignerGas is the signer's genesis balance in wei (1e24).
	SignerGas = new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
	// AccountGas is the genesis balance in wei of the minter and of each
	// buyer (1e21).
	AccountGas = new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)
	// BuyerTokens is each buyer's genesis token balance in the token's
	// smallest unit (1,000 tokens).
	BuyerTokens = big.NewInt(1_000_000_000)
)

func deriveAccount(name, seed string) (Account, error) {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed)))
	if err != nil {
		return Account{}, fmt.Errorf("devnet: key %s: %w", name, err)
	}
	return Account{
		Name:       name,
		Address:    crypto.PubkeyToAddress(k.PublicKey),
		PrivateKey: hexutil.Encode(crypto.FromECDSA(k)),
		Key:        k,
	}, nil
}
