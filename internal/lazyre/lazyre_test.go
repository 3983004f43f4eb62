package lazyre

import (
	"sync"
	"testing"
)

var word = &Regexp{Expr: `^\w+$`}

func TestGetCompilesOnce(t *testing.T) {
	if word.re != nil {
		t.Fatal("compiled before first use")
	}
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = word.Get() })
	}
	wg.Wait()
	for _, re := range got[1:] {
		if re != got[0] {
			t.Fatal("Get compiled the expression more than once")
		}
	}
	if !word.Get().MatchString("abc") || word.Get().MatchString("a b") {
		t.Fatal("the compiled expression does not match as Expr says")
	}
}

func TestGetPanicsOnABadExpression(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an invalid expression")
		}
	}()
	(&Regexp{Expr: `(`}).Get()
}
