# One-off reader of Kueue's preemption_test.go cases (facts only) -> Steward conformance YAML.
# Usage: extract_preemption.py preemption_test.go OUTDIR (Kueue checkout at ff69552e79ad)
import re, sys, yaml, os

RES = {'corev1.ResourceCPU': 'cpu', 'corev1.ResourceMemory': 'memory', 'corev1.ResourcePods': 'pods'}

def calls(chain):
    """Top-level method calls of a builder chain: [(name, argstring)]."""
    out = []; i = 0; n = len(chain)
    while i < n:
        m = re.compile(r'[A-Za-z_][\w\.]*').match(chain, i)
        if not m:
            i += 1; continue
        name = m.group(0); j = m.end()
        while j < n and chain[j] in ' \t\n': j += 1
        if j < n and chain[j] == '(':
            depth = 0; k = j
            while k < n:
                if chain[k] == '(': depth += 1
                elif chain[k] == ')':
                    depth -= 1
                    if depth == 0: break
                elif chain[k] == '"':
                    k += 1
                    while chain[k] != '"': k += 1
                k += 1
            out.append((name.split('.')[-1], chain[j+1:k])); i = k + 1
        else:
            i = j
    return out

def split_args(s):
    args = []; depth = 0; cur = ''; instr = False
    for ch in s:
        if ch == '"': instr = not instr
        if not instr:
            if ch in '({[': depth += 1
            if ch in ')}]': depth -= 1
            if ch == ',' and depth == 0:
                args.append(cur.strip()); cur = ''; continue
        cur += ch
    if cur.strip(): args.append(cur.strip())
    return args

def res(x):
    x = x.strip()
    if x in RES: return RES[x]
    if x.startswith('"'): return x.strip('"')
    raise ValueError('resource ' + x)

def tval(x):
    x = x.strip().rstrip(',')
    if x == 'now': return 0
    m = re.match(r'now\.Add\((-?)(?:(\d+)\s*\*\s*)?time\.(Second|Minute)\)$', x)
    if m:
        v = int(m.group(2) or 1) * (60 if m.group(3) == 'Minute' else 1)
        return -v if m.group(1) else v
    raise ValueError('time ' + x)

def chain_end(text, start):
    depth = 0; i = start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i += 1
            while text[i] != '"': i += 1
        elif ch in '({': depth += 1
        elif ch in ')}':
            if depth == 0: return i
            depth -= 1
        elif ch == ',' and depth == 0: return i
        i += 1
    return i

def podset(chain):
    # MakePodSet("name", count).Request(...)...
    cs = calls(chain)
    name, count = None, 1
    reqs = {}
    for c, a in cs:
        if c == 'MakePodSet':
            args = split_args(a); name = args[0].strip('"')
            count = int(args[1]) if args[1].isdigit() else args[1]
        elif c == 'Request':
            args = split_args(a); reqs[res(args[0])] = args[1].strip('"')
        elif c in ('Obj',): pass
        else: raise ValueError('podset call ' + c)
    return {'name': name, 'count': count, 'requests': reqs}

def workload(chain, allow_unknown=False):
    w = {'pod_sets': [{'name': 'main', 'count': 1, 'requests': {}}]}
    explicit_ps = False
    for c, a in calls(chain):
        if c == 'MakeWorkload': w['name'] = split_args(a)[0].strip('"')
        elif c in ('Clone', 'UID', 'Label', 'Obj', 'SchedulingStatsEviction', 'Queue', 'ResourceVersion'): pass
        elif c == 'Priority': w['priority'] = int(a)
        elif c == 'Request':
            args = split_args(a); w['pod_sets'][0]['requests'][res(args[0])] = args[1].strip('"')
        elif c == 'PodSets':
            w['pod_sets'] = [podset(p.lstrip('*')) for p in split_args(a)]; explicit_ps = True
        elif c == 'Creation': w['created'] = tval(a)
        elif c == 'SimpleReserveQuota':
            args = split_args(a)
            w['admitted'] = {'cluster_queue': args[0].strip('"'), 'flavors': {
                ps['name']: {r: args[1].strip('"') for r in ps['requests']} for ps in w['pod_sets']}}
            w['reserved_at'] = tval(args[2])
        elif c in ('ReserveQuotaAt', 'ReserveQuota', 'ReserveQuotaAt'):
            args = split_args(a)
            adm = {'flavors': {}}
            for c2, a2 in calls(args[0]):
                if c2 == 'MakeAdmission': adm['cluster_queue'] = split_args(a2)[0].strip('"')
                elif c2 == 'PodSets':
                    for psa in split_args(a2):
                        psname = None; fl = {}; cnt = None
                        for c3, a3 in calls(psa):
                            if c3 == 'MakePodSetAssignment':
                                x = split_args(a3)[0]
                                psname = 'main' if 'DefaultPodSetName' in x else x.strip('"')
                            elif c3 == 'Assignment':
                                aa = split_args(a3); fl[res(aa[0])] = aa[1].strip('"')
                            elif c3 == 'Count': cnt = int(a3)
                            elif c3 == 'Obj': pass
                            else: raise ValueError('psa call ' + c3)
                        adm['flavors'][psname] = fl
                        if cnt is not None: adm.setdefault('counts', {})[psname] = cnt
                elif c2 == 'Obj': pass
                else: raise ValueError('admission call ' + c2)
            w['admitted'] = adm
            w['reserved_at'] = tval(args[1]) if len(args) > 1 else 0
        elif c == 'Condition':
            m = re.search(r'Type:\s*kueue\.WorkloadPreempted.*?Reason:\s*"(\w+)"', a, re.S)
            if m: w['preempted_reason'] = m.group(1)
        elif c in ('Active',): raise ValueError('feature: Active')
        else:
            raise ValueError('workload call ' + c)
    return w

def workloads_in(block):
    out = []
    for m in re.finditer(r'\*?utiltestingapi\.MakeWorkload\(|baseIncomingWl\.Clone\(\)', block):
        end = chain_end(block, m.start())
        ch = block[m.start():end]
        if ch.startswith('baseIncomingWl'):
            ch = 'MakeWorkload("in", "").' + ch[len('baseIncomingWl.Clone().'):]
        out.append(workload(ch.lstrip('*')))
    return out

def field(case, name):
    m = re.search(r'\n\t\t\t' + name + r':\s*', case)
    if not m: return None
    end = chain_end(case, m.end())
    return case[m.end():end]

src = re.sub(r'//[^\n]*', '', open(sys.argv[1]).read())
FIXED = ('the flavor assignment fixed by the unit test (the preemptor is called with flavor beta; '
         'the scheduler ranks alpha and beta both as preempt and takes the earlier, alpha)')
OVERRIDES = {'only preempt workloads using the chosen flavor': FIXED}
outdir = sys.argv[2]
body = src[src.index('\tcases := map[string]struct {'):src.index('func TestPreemptionWhenWorkloadModifiedConcurrently')]
names = [(m.group(1), m.start()) for m in re.finditer(r'^\t\t"([^"]+)": \{$', body, re.M)]
ok = skipped = 0
for i, (name, st) in enumerate(names):
    end = names[i + 1][1] if i + 1 < len(names) else len(body)
    case = body[st:end]
    slug = re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')
    if len(slug) > 80:  # Long names: a prefix plus a digest keeps every case its own file.
        import hashlib
        slug = slug[:72] + '-' + hashlib.sha1(name.encode()).hexdigest()[:7]
    slug = 'preemption-' + slug
    doc = {'upstream': {'repo': 'kubernetes-sigs/kueue', 'commit': 'ff69552e79ad',
                        'file': 'pkg/scheduler/preemption/preemption_test.go',
                        'test': 'TestPreemption', 'case': name}}
    try:
        if name in OVERRIDES:
            raise ValueError(OVERRIDES[name])
        if 'defaultClusterQueues' not in (field(case, 'clusterQueues') or ''):
            raise ValueError('its own ClusterQueue and Cohort tree (not yet re-expressed)')
        adm = workloads_in(field(case, 'admitted') or '')
        inc = workloads_in(field(case, 'incoming'))[0]
        inc['queue'] = field(case, 'targetCQ').strip('"')
        want = workloads_in(field(case, 'wantWorkloads') or '')
        for w in adm: w['queue'] = w['admitted']['cluster_queue']
        doc['include'] = ['preemption-queues.yaml']
        doc['cycles'] = 1
        doc['workloads'] = adm + [inc]
        exp = {w['name']: w['preempted_reason'] for w in want if 'preempted_reason' in w}
        doc['expect'] = {'preempted': exp, 'preempted_by': 'in' if exp else None}
        if not exp: del doc['expect']['preempted_by']
        ok += 1
    except (ValueError, IndexError, KeyError, AttributeError) as e:
        doc['skip'] = str(e)
        skipped += 1
    target = os.path.join(outdir, slug + '.yaml')
    if os.path.exists(target) and 'by hand' in open(target).read():
        continue  # re-expressed by hand; keep it
    with open(target, 'w') as f:
        f.write('# Kueue conformance case: re-expressed from the upstream table test named below\n'
                '# (facts only). Input: shared queues (include) + workloads; expect: after the cycles.\n')
        yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None, width=100)
print('ok', ok, 'skipped', skipped)
