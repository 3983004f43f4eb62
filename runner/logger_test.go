package runner

import (
	"math/rand/v2"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
)

// TestTimeEncoder checks the log's "ts" against time.RFC3339Nano, whose text it
// must be, in several zones, whole seconds and trimmed fractions included.
func TestTimeEncoder(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("", -7*3600), time.FixedZone("", 5*3600+45*60)}
	if l, err := time.LoadLocation("Europe/Paris"); err == nil {
		zones = append(zones, l)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var te timeEncoder
	base := time.Date(2026, 3, 29, 0, 59, 58, 0, time.UTC) // a DST change in Paris
	for i := range 20000 {
		tt := base.Add(time.Duration(r.Int64N(int64(3 * time.Second))))
		switch i % 4 {
		case 0:
			tt = tt.Truncate(time.Second)
		case 1:
			tt = tt.Truncate(time.Millisecond)
		}
		tt = tt.In(zones[i%len(zones)])
		var got stringArray
		te.encode(tt, &got)
		if want := tt.Format(time.RFC3339Nano); len(got) != 1 || got[0] != want {
			t.Fatalf("encode(%v) = %q, want %q", tt, got, want)
		}
	}
	for _, tt := range []time.Time{time.Date(12345, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(-5, 1, 2, 3, 4, 5, 600, time.UTC)} {
		var got stringArray
		te.encode(tt, &got)
		if want := tt.Format(time.RFC3339Nano); len(got) != 1 || got[0] != want {
			t.Errorf("encode(%v) = %q, want %q", tt, got, want)
		}
	}
}

// stringArray collects what an encoder appends.
type stringArray []string

func (a *stringArray) AppendString(s string) { *a = append(*a, s) }

func (a *stringArray) AppendBool(bool)                            {}
func (a *stringArray) AppendByteString([]byte)                    {}
func (a *stringArray) AppendComplex128(complex128)                {}
func (a *stringArray) AppendComplex64(complex64)                  {}
func (a *stringArray) AppendFloat64(float64)                      {}
func (a *stringArray) AppendFloat32(float32)                      {}
func (a *stringArray) AppendInt(int)                              {}
func (a *stringArray) AppendInt64(int64)                          {}
func (a *stringArray) AppendInt32(int32)                          {}
func (a *stringArray) AppendInt16(int16)                          {}
func (a *stringArray) AppendInt8(int8)                            {}
func (a *stringArray) AppendUint(uint)                            {}
func (a *stringArray) AppendUint64(uint64)                        {}
func (a *stringArray) AppendUint32(uint32)                        {}
func (a *stringArray) AppendUint16(uint16)                        {}
func (a *stringArray) AppendUint8(uint8)                          {}
func (a *stringArray) AppendUintptr(uintptr)                      {}
func (a *stringArray) AppendDuration(time.Duration)               {}
func (a *stringArray) AppendTime(time.Time)                       {}
func (a *stringArray) AppendArray(zapcore.ArrayMarshaler) error   { return nil }
func (a *stringArray) AppendObject(zapcore.ObjectMarshaler) error { return nil }
func (a *stringArray) AppendReflected(any) error                  { return nil }
