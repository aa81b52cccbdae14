package proto

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// paramsTypes are every params type, each of which must encode itself
// (AppendJSON) exactly as encoding/json does.
var paramsTypes = []appender{
	NoParams{}, Target{},
	WorkspaceCurrentParams{}, WorkspaceCreateParams{}, WorkspaceIndexParams{},
	WorkspaceMoveParams{Index: 1, To: 2}, WorkspaceRenameParams{Title: "t"},
	WorkspaceRestoreLayoutParams{}, PaneParams{}, WorkspaceUpParams{},
	SurfaceReadParams{}, SurfaceSearchParams{}, SearchAllParams{}, SurfaceScreensParams{}, SurfaceRenameParams{}, SurfaceIDParams{}, SurfaceStatusParams{CPU: true},
	SurfaceSplitParams{}, SurfaceResizeParams{}, SurfaceSendTextParams{},
	SurfaceSendKeystrokeParams{}, SurfaceInterruptParams{}, SurfaceWaitParams{}, EventsSubscribeParams{},
	AIFrameParams{}, TeamsTmuxParams{}, TeamsAttachParams{},
	WorktreeCreateParams{}, WorktreeRollbackParams{}, ArtifactParams{},
	UsageSummaryParams{}, UsageLimitParams{}, UsageTrackParams{}, UsageBudgetWaitParams{},
	WorkspacePresetParams{}, WorkspaceSetRatiosParams{},
	ScreenAttachParams{}, ScreenRowsParams{}, ScreenLinesParams{}, ScreenInputParams{},
	ScreenResizeParams{}, ScreenPaneParams{}, ScreenShownParams{}, AIHistoryParams{},
	ReviewCommentParams{}, ReviewListParams{}, ReviewResolveParams{}, ReviewSendParams{}, ReviewDiffParams{}, ReviewWatchParams{}, LandParams{}, LandPRParams{}, LandTeardownParams{}, ChecksParams{},
	WebPairParams{}, WebRevokeParams{}, HooksReportParams{},
}

// TestParamsTypesListed checks that every exported type named *Params is
// in paramsTypes.
func TestParamsTypesListed(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, p := range paramsTypes {
		listed = append(listed, reflect.TypeOf(p).Name())
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.TYPE {
					continue
				}
				for _, s := range g.Specs {
					name := s.(*ast.TypeSpec).Name.Name
					if strings.HasSuffix(name, "Params") && ast.IsExported(name) && !slices.Contains(listed, name) {
						t.Errorf("params type %s is not in paramsTypes (and may lack AppendJSON)", name)
					}
				}
			}
		}
	}
}

// TestAppendJSON holds every params type's AppendJSON to json.Marshal:
// the zero value, and values with every member set to random values
// (strings with characters JSON escapes, pointers to zero values, empty
// and nil slices).
func TestAppendJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range paramsTypes {
		typ := reflect.TypeOf(p)
		for i := range 200 {
			v := reflect.New(typ).Elem()
			if i > 0 {
				fill(r, v)
			}
			checkAppend(t, v.Interface().(appender))
		}
	}
}

func checkAppend(t *testing.T, p appender) {
	t.Helper()
	want, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("json.Marshal(%#v): %v", p, err)
	}
	if got := p.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
		t.Fatalf("%T.AppendJSON = %s\nwant x%s\n(value %#v)", p, got, want, p)
	}
}

var samples = []string{"", "a", "<b> & \"c\" \\ \n\t\x01 é \u2028 \xff", "surface_id", "0"}

// fill sets v (settable) to random values, recursively.
func fill(r *rand.Rand, v reflect.Value) {
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		raws := []string{"", `{"a":[1,"x"]}`, "null", `"s"`, "[]"}
		v.SetBytes([]byte(raws[r.IntN(len(raws))]))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(samples[r.IntN(len(samples))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt([]int64{0, 1, -7, 1 << 40}[r.IntN(4)])
	case reflect.Uint64, reflect.Uint8:
		v.SetUint([]uint64{0, 1, 255}[r.IntN(3)])
	case reflect.Float64:
		v.SetFloat([]float64{0, 1, 0.0001, 2.5e-7, 1e21, 12.345, 1.0 / 3}[r.IntN(7)])
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		e := reflect.New(v.Type().Elem())
		if r.IntN(2) == 0 {
			fill(r, e.Elem())
		}
		v.Set(e)
	case reflect.Slice:
		switch r.IntN(3) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := 1 + r.IntN(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				fill(r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type())
		for range r.IntN(4) {
			k := reflect.New(v.Type().Key()).Elem()
			e := reflect.New(v.Type().Elem()).Elem()
			fill(r, k)
			fill(r, e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i))
			}
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// TestSubscribeTo checks the params SubscribeTo builds.
func TestSubscribeTo(t *testing.T) {
	for _, tt := range []struct {
		surfaces []uint64
		types    []string
		want     string
	}{
		{nil, nil, `{}`},
		{[]uint64{3, 4}, nil, `{"surfaces":[3,4]}`},
		{[]uint64{}, []string{"agent_state", "<x>"}, `{"surfaces":[],"types":["agent_state","\u003cx\u003e"]}`},
	} {
		if got := string(SubscribeTo(tt.surfaces, tt.types).AppendJSON(nil)); got != tt.want {
			t.Errorf("SubscribeTo(%v, %q) = %s, want %s", tt.surfaces, tt.types, got, tt.want)
		}
	}
}
