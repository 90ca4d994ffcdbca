package security

// matcher finds many literal anchors in one pass over a text, ignoring
// ASCII case and reading a line break or a tab as a space: an Aho-Corasick automaton compiled to a table over byte
// classes. Every text file is scanned once, whatever the number of
// anchors, at about a table lookup per byte; the phrase rules then look
// closer only where an anchor was found.
type matcher struct {
	// class maps a byte to its column: the bytes anchors use, A-Z folded
	// onto a-z, and 0 for every other byte.
	class  [256]uint8
	nclass int
	// delta is the transition table: delta[s+class] is the next state,
	// premultiplied by nclass, with outFlag set when the state ends an
	// anchor.
	delta []uint32
	// out lists the anchors that end in each state, by state number.
	out [][]int
	// anchors are the lower-case texts, by id; maxLen is the longest.
	anchors []string
	maxLen  int
}

const outFlag = 1 << 31

// newMatcher compiles the anchors, which are lower case.
func newMatcher(anchors []string) *matcher {
	m := &matcher{anchors: anchors}
	// Columns: every byte an anchor uses.
	for _, a := range anchors {
		m.maxLen = max(m.maxLen, len(a))
		for i := 0; i < len(a); i++ {
			b := a[i]
			if m.class[b] == 0 {
				m.nclass++
				m.class[b] = uint8(m.nclass)
			}
		}
	}
	m.nclass++ // column 0: any other byte
	for b := 'A'; b <= 'Z'; b++ {
		m.class[b] = m.class[b+'a'-'A']
	}
	// A line break or a tab is a space: a phrase wrapped over two lines
	// ("follow\nthe instructions") is the phrase.
	m.class['\n'], m.class['\t'] = m.class[' '], m.class[' ']
	// The trie.
	type node struct {
		next map[uint8]int
		fail int
		out  []int
	}
	nodes := []node{{next: map[uint8]int{}}}
	for id, a := range anchors {
		s := 0
		for i := 0; i < len(a); i++ {
			c := m.class[a[i]]
			n, ok := nodes[s].next[c]
			if !ok {
				n = len(nodes)
				nodes = append(nodes, node{next: map[uint8]int{}})
				nodes[s].next[c] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, id)
	}
	// Failure links, breadth first, and the full table.
	m.delta = make([]uint32, len(nodes)*m.nclass)
	m.out = make([][]int, len(nodes))
	queue := []int{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s != 0 {
			nodes[s].out = append(nodes[s].out, nodes[nodes[s].fail].out...)
		}
		m.out[s] = nodes[s].out
		for c := 0; c < m.nclass; c++ {
			t, ok := nodes[s].next[uint8(c)]
			var next int
			switch {
			case ok:
				next = t
				if s != 0 {
					nodes[t].fail = int(m.delta[nodes[s].fail*m.nclass+c]&^outFlag) / m.nclass
				}
				queue = append(queue, t)
			case s != 0:
				next = int(m.delta[nodes[s].fail*m.nclass+c]&^outFlag) / m.nclass
			}
			m.delta[s*m.nclass+c] = uint32(next * m.nclass)
		}
	}
	// Flag the transitions into states that end an anchor; the failure
	// outputs were merged in above, but a state's transitions were
	// written before later states got their outputs, so flag at the end.
	for i, e := range m.delta {
		if len(m.out[int(e)/m.nclass]) > 0 {
			m.delta[i] = e | outFlag
		}
	}
	return m
}

// scan returns the anchors found in data, ordered by their end. A long
// text is scanned as two halves at once (the second starting early
// enough to catch an anchor across the middle), so that the two chains of
// table lookups overlap in the processor.
func (m *matcher) scan(data []byte) []hit {
	const split = 4 << 10
	if len(data) < split {
		return m.scanRange(data, 0, len(data), 0, nil)
	}
	mid := len(data) / 2
	start2 := max(0, mid-(m.maxLen-1))
	var first, second []hit
	delta, class, nclass := m.delta, &m.class, m.nclass
	var s1, s2 uint32
	emit := func(to []hit, s uint32, end, after int) []hit {
		for _, id := range m.out[int(s)/nclass] {
			if end > after {
				to = append(to, hit{id: id, start: end - len(m.anchors[id]), end: end})
			}
		}
		return to
	}
	a, b := data[:mid], data[start2:start2+mid]
	for k := range a {
		e1 := delta[s1+uint32(class[a[k]])]
		e2 := delta[s2+uint32(class[b[k]])]
		s1, s2 = e1&^outFlag, e2&^outFlag
		if (e1|e2)&outFlag != 0 {
			if e1&outFlag != 0 {
				first = emit(first, s1, k+1, -1)
			}
			if e2&outFlag != 0 {
				second = emit(second, s2, start2+k+1, mid)
			}
		}
	}
	// The rest of the second half, alone.
	return m.scanRange(data, start2+mid, len(data), s2, append(first, second...))
}

// scanRange runs the automaton over data[from:to] from state s and
// appends the anchors found to hits.
func (m *matcher) scanRange(data []byte, from, to int, s uint32, hits []hit) []hit {
	delta, class := m.delta, &m.class
	for i := from; i < to; i++ {
		e := delta[s+uint32(class[data[i]])]
		s = e &^ outFlag
		if e&outFlag != 0 {
			for _, id := range m.out[int(s)/m.nclass] {
				hits = append(hits, hit{id: id, start: i + 1 - len(m.anchors[id]), end: i + 1})
			}
		}
	}
	return hits
}
