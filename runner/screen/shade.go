package screen

import (
	"image/color"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// A Shade is the colour a cell shows behind its text: its background colour,
// or, in reverse video, its foreground colour. Menus drawn with curses or newt
// (dialog, whiptail) mark the current option only so: in reverse video, or on
// a background of its own, the same text otherwise. Cells of equal Shade look
// alike behind their text; a cell whose Shade differs from its neighbours'
// stands out.
type Shade uint32

// The terminal's own colours, which a program leaves unset.
const (
	// ShadeDefault is the terminal's default background.
	ShadeDefault Shade = 0
	// ShadeInverse is the terminal's default foreground shown as a
	// background: reverse video in the default colours.
	ShadeInverse Shade = 1
)

// shadeRGB marks a Shade that holds a colour in its low 24 bits.
const shadeRGB Shade = 1 << 24

// shadeOf returns the Shade of a cell; a nil cell shows the default background.
func shadeOf(c *uv.Cell) Shade {
	if c == nil {
		return ShadeDefault
	}
	if c.Style.Attrs&uv.AttrReverse != 0 {
		return colourShade(c.Style.Fg, ShadeInverse)
	}
	return colourShade(c.Style.Bg, ShadeDefault)
}

// colourShade returns the Shade of colour c, or def when c is unset.
func colourShade(c color.Color, def Shade) Shade {
	if c == nil {
		return def
	}
	r, g, b, _ := c.RGBA()
	return shadeRGB | Shade(r>>8)<<16 | Shade(g>>8)<<8 | Shade(b>>8)
}

// ShadeAt returns the Shade of the cell at row y and column x, both 0-based;
// outside the screen, the default background.
func (s *Screen) ShadeAt(y, x int) Shade {
	s.sync()
	if y < 0 || x < 0 || y >= s.emu.Height() || x >= s.emu.Width() {
		return ShadeDefault
	}
	return shadeOf(s.emu.CellAt(x, y))
}

// Columns appends to dst, for each byte of row y's line of Text, the column of
// the cell the byte shows, and returns the extended slice. The line is taken
// with its trailing blanks, up to the last column, so that the bytes of the
// line in Text and in TextAtCursor are each a prefix of it. A row outside the
// screen has no bytes.
func (s *Screen) Columns(dst []int, y int) []int {
	s.sync()
	if y < 0 || y >= s.emu.Height() {
		return dst
	}
	b := s.buf[:0]
	for x := range s.emu.Width() {
		n := len(b)
		b, _ = appendCell(b, s.emu.CellAt(x, y), 0)
		for range len(b) - n {
			dst = append(dst, x)
		}
	}
	s.buf = b
	return dst
}

// shadeSum folds the shade of every cell that is not on the default
// background into a sum that changes when any of them changes: a move of the
// reverse-video bar of a menu, which leaves the text as it was, changes it.
// Blank rows and columns on the default background add nothing, so resizing
// a screen keeps its sum. A colour written another way (colour 4 of 256 for
// blue) may change the sum without changing the Shade: the version then moves
// once without a visible change, which costs a look and nothing else.
type shadeSum uint64

// add folds the shade of cell c, at row y and column x, into the sum; the
// caller leaves out the cells on the default background.
func (h shadeSum) add(y, x int, c *uv.Cell) shadeSum {
	key := colourKey(c.Style.Bg)
	if c.Style.Attrs&uv.AttrReverse != 0 {
		key = 1<<40 | colourKey(c.Style.Fg)
	}
	// FNV-1a over the position and the key.
	const prime = 1099511628211
	h = (h ^ shadeSum(uint64(y)<<32|uint64(uint32(x)))) * prime
	return (h ^ shadeSum(key)) * prime
}

// colourKey returns a number for colour c, cheaply for the colours of the
// palette: the same colour written the same way gets the same number.
func colourKey(c color.Color) uint64 {
	switch c := c.(type) {
	case nil:
		return 0
	case ansi.BasicColor:
		return 1<<32 | uint64(c)
	case ansi.IndexedColor:
		return 2<<32 | uint64(c)
	}
	return 3<<32 | uint64(colourShade(c, ShadeDefault)&0xffffff)
}
