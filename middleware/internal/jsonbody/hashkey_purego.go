//go:build purego

package jsonbody

import (
	"encoding/binary"
	"hash/maphash"
)

// hashKey returns the seeded hash of k's eight octets. Built with the
// purego tag, the standard library's maphash.Comparable hashes a value
// through reflect, an allocation per call; maphash.Bytes allocates
// nothing (and is slower than Comparable without the tag).
func hashKey(k uint64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], k)
	return maphash.Bytes(memberSeed, b[:])
}
