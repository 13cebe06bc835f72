// Package bolt is the embedded store backend (package store's interfaces),
// the default: one bbolt file per store, held by one process. Its journal
// (OpenJournal) is also a store.Catalog and a store.CoolOffs in the same
// file; its redemption store (OpenRedemptions) is also a store.Channels
// (whose charges are logged ahead of bbolt: channels_log.go), a
// store.Grants and a store.CoolOffs in the same file. Claims go in
// memory (memory.NewClaims): one process uses the file.
package bolt
