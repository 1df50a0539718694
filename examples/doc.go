// Package examples holds no code: its test checks that the README shows
// the example programs in the directories below it verbatim, so that the
// README's code is code that compiles and is tested.
package examples
