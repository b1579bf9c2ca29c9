# Generates tables.go from shared/specs/clrs-paper.md (run from shared/specs):
#   python3 gen_tables.py > tables.go && gofmt -w tables.go
import re
lines=open('clrs-paper.md').read().split('\n')
def table(header):
    i=[k for k,l in enumerate(lines) if l.startswith(header)][0]
    while not lines[i].startswith('| Algorithm'): i+=1
    cols=[c.strip() for c in lines[i].strip('|').split('|')][1:]
    rows=[]
    i+=2
    while lines[i].startswith('|'):
        cells=[c.strip() for c in lines[i].strip('|').split('|')]
        rows.append(cells); i+=1
    return cols, rows
names={}
cat_of={}
cur=None
for l in lines:
    m=re.match(r'\| (\d+) \| ([^|]+) \| ([^|]+) \| `([a-z_]+)` \|', l)
    if m:
        names[m.group(3).strip()]=m.group(4)
        c=m.group(2).strip()
        if '(' in c: cur=c.split('(')[1].rstrip(')').strip()
        cat_of[m.group(4)]=cur
def cell(s):
    s=s.replace('**','')
    m=re.match(r'([\d.]+)% ± ([\d.]+)', s)
    return float(m.group(1)), float(m.group(2))
def sc(v):
    m,s=cell(v); return '{%r, %r}'%(m,s)
out=[]
p=out.append
p('// Code generated from the CLRS paper\'s Tables 1–4 (transcribed in')
p('// shared/specs/clrs-paper.md); DO NOT EDIT.\n')
p('package paper\n')
cols,_=table('### 6.2')
p('// Models are the five baselines in the order of the paper\'s tables.')
p('var Models = []string{%s}\n' % ', '.join('"%s"'%c for c in cols))
for name,hdr,doc in [('Test','### 6.2','Test holds Table 2: test (OOD, n = 64) micro-F1 in %, mean ± std over three seeds, by algorithm and model.'),
                     ('Validation','### 6.4','Validation holds Table 4: early-stopped validation (n = 16) micro-F1 in %, by algorithm and model.')]:
    cols,rows=table(hdr)
    p('// %s' % doc)
    p('var %s = map[string]map[string]Score{' % name)
    for r in rows:
        if r[0].startswith('Overall'): continue
        p('\t"%s": {' % names[r[0]])
        for c,v in zip(cols,r[1:]):
            p('\t\t"%s": %s,' % (c,sc(v)))
        p('\t},')
    p('}\n')
cols,rows=table('### 6.3')
p('// Outcomes holds Table 3: W (win), T (tie) or L (loss) by algorithm and model.')
p('var Outcomes = map[string]map[string]byte{')
for r in rows:
    if r[0].startswith('Overall'): continue
    p('\t"%s": {%s},' % (names[r[0]], ', '.join("\"%s\": '%s'"%(c,v) for c,v in zip(cols,r[1:]))))
p('}\n')
tot=[r for r in rows if r[0].startswith('Overall')][0]
p('// OutcomeTotals holds Table 3\'s totals: wins, ties and losses per model.')
p('var OutcomeTotals = map[string][3]int{')
for c,v in zip(cols,tot[1:]):
    w,t,l=v.split('/')
    p('\t"%s": {%s, %s, %s},' % (c,w,t,l))
p('}\n')
cols,rows=table('### 6.1')
p('// Classes holds Table 1: average test micro-F1 (%) per algorithm class and model, with its ±.')
p('var Classes = map[string]map[string]Score{')
for r in rows:
    if r[0].startswith('Overall') or r[0].startswith('Win'): continue
    p('\t"%s": {%s},' % (r[0], ', '.join('"%s": %s'%(c,sc(v)) for c,v in zip(cols,r[1:]))))
p('}\n')
ov=[r for r in rows if r[0].startswith('Overall')][0]
p('// ClassAverage holds Table 1\'s "Overall average" row (the mean of the 8 class means).')
p('var ClassAverage = map[string]float64{%s}\n' % ', '.join('"%s": %s'%(c,v.replace('**','').rstrip('%')) for c,v in zip(cols,ov[1:])))
for name,hdr in [('TestAverage','### 6.2'),('ValidationAverage','### 6.4')]:
    cols,rows=table(hdr)
    ov=[r for r in rows if r[0].startswith('Overall')][0]
    p('// %s is the "Overall average" row of its table.' % name)
    p('var %s = map[string]float64{%s}\n' % (name, ', '.join('"%s": %s'%(c,v.replace('**','').rstrip('%')) for c,v in zip(cols,ov[1:]))))
p('// Class maps each CLRS-30 algorithm to its Table 1 class.')
p('var Class = map[string]string{')
for a,c in cat_of.items(): p('\t"%s": "%s",' % (a,c))
p('}\n')
p('// TableName maps each algorithm to its row label in Tables 2–4.')
p('var TableName = map[string]string{')
for t,a in names.items(): p('\t"%s": "%s",' % (a,t))
p('}')
print('\n'.join(out))
