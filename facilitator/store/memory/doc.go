// Package memory is the store backend in memory (package store's
// interfaces): for a devnet, whose chain does not outlive the process
// either, and for tests. Its journal (NewJournal) is also a store.Catalog
// and a store.CoolOffs; its redemption store (NewRedemptions) is also a
// store.Grants, a store.Channels and a store.CoolOffs. NewClaims holds
// claims within one process, for every store that one process uses
// (memory and bbolt). Nothing survives a restart.
package memory
