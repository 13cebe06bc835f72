package x402

// API paths (spec part 4).
const (
	PathHealth    = "/healthcheck"
	PathSupported = "/v2/x402/supported"
	PathVerify    = "/v2/x402/verify"
	PathSettle    = "/v2/x402/settle"
	// PathSettlements is followed by a transaction hash: GET reports that
	// settlement's outcome from the journal.
	PathSettlements = "/v2/x402/settlements/"
	// PathSettlementLookup finds a settlement by its authorization:
	// GET /v2/x402/settlements?network=...&from=0x...&nonce=0x...
	PathSettlementLookup = "/v2/x402/settlements"
)

// PathDiscoveryResources is the discovery list. The reference client
// (@x402/extensions withBazaar) given the facilitator URL
// https://host/v2/x402 appends /discovery/resources.
const PathDiscoveryResources = "/v2/x402/discovery/resources"

// PathDiscoverySearch is the discovery search (@x402/extensions'
// bazaar.search appends /discovery/search to the facilitator URL).
const PathDiscoverySearch = "/v2/x402/discovery/search"
