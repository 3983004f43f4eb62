// Package stream turns a program's byte stream into the text a person would
// see on a terminal, line by line: the text that stream matching and danger
// rules read (see Stripper).
//
// It is a terminal model of its own, beside the virtual screen of screen
// matching (runner/screen): it keeps a screenful of rows, carries out the
// sequences that move the cursor, erase, insert and scroll, and passes a row
// on again whenever it changes behind the text already passed on, so that a
// redraw is seen. The two models are held together by one relation, checked
// on random drawings by the package's differential tests: danger rules see
// at least what a person sees. Every row of text the screen shows is a line
// of the stripper's text (their words compared one space apart), and every
// pattern that matches a row of the screen matches a line of the stripper's
// text.
//
// The package is pure: it reads no file, environment or clock, and its
// output depends only on the bytes it is given and the terminal's size, not
// on where the stream was split.
package stream
