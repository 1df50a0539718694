//go:build !purego

package jsonbody

import "hash/maphash"

// hashKey returns the seeded hash of k: the runtime's hash of a uint64,
// as a map of uint64 keys computes it.
func hashKey(k uint64) uint64 { return maphash.Comparable(memberSeed, k) }
