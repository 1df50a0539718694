//go:build !amd64 || purego

package sanitize

// useBlocks is false: there are no repair kernels without amd64 assembly.
func useBlocks(n int) bool { return false }

// repairLenBlocks is not called (useBlocks is false).
func repairLenBlocks[T string | []byte](p T, i int) (m, valid int, fill fillEnd) {
	panic("sanitize: no repair kernel")
}

// repairIntoBlocks is not called (useBlocks is false).
func repairIntoBlocks[T string | []byte](out []byte, o int, p T, i int) int {
	panic("sanitize: no repair kernel")
}
