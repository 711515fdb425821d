# One-off reader of Kueue's scheduler_test.go TestSchedule cases (facts only) -> conformance YAML.
# Usage: extract_schedule.py scheduler_test.go OUTDIR [PREFIX UPSTREAM_FILE TEST] (Kueue checkout at ff69552e79ad)
import re, sys, os, yaml
sys.argv_saved = sys.argv
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'extract_preemption.py')).read().split("src = re.sub")[0])  # helpers only

def quant(x): return x.strip().strip('"')

def tolist(a): return [quant(v) for v in re.findall(r'"([^"]*)"', a)]

def fq(chain):
    f = None; rs = []
    for c, a in calls(chain.lstrip('*')):
        if c == 'MakeFlavorQuotas': f = quant(a)
        elif c == 'Resource':
            args = split_args(a)
            r = {'name': res(args[0]), 'nominalQuota': quant(args[1])}
            if len(args) > 2 and quant(args[2]): r['borrowingLimit'] = quant(args[2])
            if len(args) > 3 and quant(args[3]): r['lendingLimit'] = quant(args[3])
            rs.append(r)
        elif c == 'ResourceQuotaWrapper': cur = {'name': res(a)}
        elif c == 'NominalQuota': cur['nominalQuota'] = quant(a)
        elif c == 'BorrowingLimit': cur['borrowingLimit'] = quant(a)
        elif c == 'LendingLimit': cur['lendingLimit'] = quant(a)
        elif c == 'Append': rs.append(cur)
        elif c == 'Obj': pass
        else: raise ValueError('flavor quotas call ' + c)
    return {'name': f, 'resources': rs}

VARS = {}  # Local variables of the case's helper closures (rg := ..., preemption := ...).

def group(args):
    args = VARS.get(args.strip(), args)
    if 'MakeFlavorQuotas' not in args: raise ValueError('queues built by a helper closure (not yet re-expressed)')
    fls = [fq(x) for x in split_args(args)]
    cov = []
    for fl in fls:
        for r in fl['resources']:
            if r['name'] not in cov: cov.append(r['name'])
    return {'coveredResources': cov, 'flavors': fls}

POL = {'PreemptionPolicyAny': 'Any', 'PreemptionPolicyLowerPriority': 'LowerPriority', 'PreemptionPolicyNever': 'Never',
       'PreemptionPolicyLowerOrNewerEqualPriority': 'LowerOrNewerEqualPriority',
       'BorrowWithinCohortPolicyLowerPriority': 'LowerPriority', 'BorrowWithinCohortPolicyNever': 'Never',
       'Borrow': 'Borrow', 'TryNextFlavor': 'TryNextFlavor', 'Preempt': 'Preempt', 'MayStopSearch': 'MayStopSearch',
       'StrictFIFO': 'StrictFIFO', 'BestEffortFIFO': 'BestEffortFIFO'}

def enum(x):
    k = x.strip().split('.')[-1]
    if k not in POL: raise ValueError('enum ' + x)
    return POL[k]

def preemption(a):
    a = VARS.get(a.strip(), a)
    out = {}
    for key, field in [('WithinClusterQueue', 'withinClusterQueue'), ('ReclaimWithinCohort', 'reclaimWithinCohort')]:
        m = re.search(key + r':\s*([\w\.]+)', a)
        if m: out[field] = enum(m.group(1))
    m = re.search(r'BorrowWithinCohort:\s*&kueue\.BorrowWithinCohort\{(.*?)\}', a, re.S)
    if m:
        b = {}
        p = re.search(r'Policy:\s*([\w\.]+)', m.group(1))
        if p: b['policy'] = enum(p.group(1))
        t = re.search(r'MaxPriorityThreshold:\s*(?:new\(int32\((-?\d+)\)\)|ptr\.To\[int32\]\((-?\d+)\))', m.group(1))
        if t: b['maxPriorityThreshold'] = int(t.group(1) or t.group(2))
        out['borrowWithinCohort'] = b
        if out.get('reclaimWithinCohort', 'Never') == 'Never':  # noqa
            raise ValueError('a ClusterQueue Kueue\'s own validation rejects (borrowWithinCohort with reclaimWithinCohort Never)')
    return out

def cq(chain):
    spec = {'namespaceSelector': {}, 'resourceGroups': []}
    name = None
    for c, a in calls(chain.lstrip('*')):
        if c == 'MakeClusterQueue': name = quant(a)
        elif c == 'Cohort': spec['cohort'] = quant(a)
        elif c == 'NamespaceSelector':
            if a.strip() == 'nil': spec['namespaceSelector'] = None
            else:
                exprs = []
                for m in re.finditer(r'Key:\s*"([^"]+)",\s*Operator:\s*metav1\.LabelSelectorOp(\w+),\s*Values:\s*\[\]string\{([^}]*)\}', a):
                    exprs.append({'key': m.group(1), 'operator': m.group(2), 'values': tolist(m.group(3))})
                if not exprs and a.strip() not in ('&metav1.LabelSelector{}',): raise ValueError('namespaceSelector ' + a)
                spec['namespaceSelector'] = {'matchExpressions': exprs} if exprs else {}
        elif c == 'QueueingStrategy': spec['queueingStrategy'] = enum(a)
        elif c == 'ResourceGroup': spec['resourceGroups'].append(group(a))
        elif c == 'Preemption': spec['preemption'] = preemption(a)
        elif c == 'FlavorFungibility':
            ff = {}
            for key, field in [('WhenCanBorrow', 'whenCanBorrow'), ('WhenCanPreempt', 'whenCanPreempt')]:
                m = re.search(key + r':\s*([\w\.]+)', a)
                if m: ff[field] = enum(m.group(1))
            if 'Preference' in a: raise ValueError('flavorFungibility.preference')
            spec['flavorFungibility'] = ff
        elif c == 'FairWeight':
            m = re.search(r'MustParse\("([^"]+)"\)', a); spec['fairSharing'] = {'weight': m.group(1)}
        elif c == 'Obj': pass
        else: raise ValueError('ClusterQueue call ' + c)
    seen = set()
    for g in spec['resourceGroups']:
        for r in g['coveredResources']:
            if r in seen:
                raise ValueError('a ClusterQueue Kueue\'s own validation rejects (a resource in two resource groups)')
            seen.add(r)
    if 'cohort' not in spec:
        for g in spec['resourceGroups']:
            for fl in g['flavors']:
                for r in fl['resources']: r.pop('borrowingLimit', None)
    return {'apiVersion': 'kueue.x-k8s.io/v1beta1', 'kind': 'ClusterQueue', 'metadata': {'name': name}, 'spec': spec}

def lq(chain):
    out = {'apiVersion': 'kueue.x-k8s.io/v1beta1', 'kind': 'LocalQueue', 'metadata': {}, 'spec': {}}
    for c, a in calls(chain.lstrip('*')):
        if c == 'MakeLocalQueue':
            args = split_args(a); out['metadata'] = {'name': quant(args[0]), 'namespace': quant(args[1])}
        elif c == 'ClusterQueue': out['spec']['clusterQueue'] = quant(a)
        elif c == 'Obj': pass
        else: raise ValueError('LocalQueue call ' + c)
    return out

def cohort(chain):
    out = {'apiVersion': 'kueue.x-k8s.io/v1beta1', 'kind': 'Cohort', 'metadata': {}, 'spec': {}}
    for c, a in calls(chain.lstrip('*')):
        if c == 'MakeCohort': out['metadata']['name'] = quant(a)
        elif c in ('Parent',): out['spec']['parentName'] = quant(a)
        elif c == 'FairWeight':
            m = re.search(r'MustParse\("([^"]+)"\)', a); out['spec']['fairSharing'] = {'weight': m.group(1)}
        elif c == 'ResourceGroup': out['spec'].setdefault('resourceGroups', []).append(group(a))
        elif c == 'Obj': pass
        else: raise ValueError('Cohort call ' + c)
    return out

def items(block, maker):
    out = []
    for m in re.finditer(r'\*?utiltestingapi\.' + maker + r'\(', block):
        end = chain_end(block, m.start())
        chain = block[m.start():end]
        stop = re.search(r'\n\s*(\w+ :=|return )', chain)  # a closure's next statement
        out.append(chain[:stop.start()] if stop else chain)
    return out

def sworkload(chain):
    w = {'pod_sets': [{'name': 'main', 'count': 1, 'requests': {}}]}
    for c, a in calls(chain.lstrip('*')):
        if c == 'MakeWorkload':
            args = split_args(a); w['name'] = quant(args[0]); w['namespace'] = quant(args[1])
        elif c in ('Obj', 'Generation', 'UID', 'Label', 'ResourceVersion', 'JobUID'): pass
        elif c == 'Queue': w['queue'] = quant(a)
        elif c == 'Priority': w['priority'] = int(a)
        elif c == 'Request':
            args = split_args(a); w['pod_sets'][0]['requests'][res(args[0])] = quant(args[1])
        elif c == 'PodSets':
            pss = []
            for p in split_args(a):
                ps = {'requests': {}}
                for c2, a2 in calls(p.lstrip('*')):
                    if c2 == 'MakePodSet':
                        aa = split_args(a2); ps['name'] = 'main' if 'DefaultPodSetName' in aa[0] else quant(aa[0]); ps['count'] = int(aa[1])
                    elif c2 == 'Request': aa = split_args(a2); ps['requests'][res(aa[0])] = quant(aa[1])
                    elif c2 == 'SetMinimumCount': ps['minCount'] = int(a2)
                    elif c2 == 'Limit':
                        aa = split_args(a2); ps['requests'].setdefault(res(aa[0]), quant(aa[1]))
                    elif c2 == 'Obj': pass
                    else: raise ValueError('podset call ' + c2)
                pss.append(ps)
            w['pod_sets'] = pss
        elif c == 'Creation': w['created'] = tval(a)
        elif c in ('ReserveQuotaAt', 'ReserveQuota', 'Admission'):
            args = split_args(a)
            adm = {'flavors': {}}
            for c2, a2 in calls(args[0]):
                if c2 == 'MakeAdmission': adm['cluster_queue'] = quant(split_args(a2)[0])
                elif c2 == 'PodSets':
                    for psa in split_args(a2):
                        psname = None; fl = {}; cnt = None
                        for c3, a3 in calls(psa):
                            if c3 == 'MakePodSetAssignment':
                                x = split_args(a3)[0]; psname = 'main' if 'DefaultPodSetName' in x else quant(x)
                            elif c3 == 'Assignment': aa = split_args(a3); fl[res(aa[0])] = quant(aa[1])
                            elif c3 == 'Count': cnt = int(a3)
                            elif c3 == 'Obj': pass
                            else: raise ValueError('psa call ' + c3)
                        adm['flavors'][psname] = fl
                        if cnt is not None: adm.setdefault('counts', {})[psname] = cnt
                elif c2 == 'Obj': pass
                else: raise ValueError('admission call ' + c2)
            w['admitted'] = adm
            if len(args) > 1: w['reserved_at'] = tval(args[1])
        elif c == 'SimpleReserveQuota':
            args = split_args(a)
            w['admitted'] = {'cluster_queue': quant(args[0]), 'flavors': {ps['name']: {r: quant(args[1]) for r in ps['requests']} for ps in w['pod_sets']}}
            w['reserved_at'] = tval(args[2])
        elif c in ('Admitted', 'AdmittedAt'): pass
        elif c == 'ResourceRequests':
            for m in re.finditer(r'Name:\s*"?([\w\.-]+)"?,\s*Resources:\s*corev1\.ResourceList\{(.*?)\}', a, re.S):
                tot = {res(r): quant(q) for r, q in re.findall(r'([\w\.]+|"[^"]+"):\s*resource\.MustParse\("([^"]+)"\)', m.group(2))}
                psn = 'main' if 'DefaultPodSetName' in m.group(1) else m.group(1)
                for ps in w['pod_sets']:
                    if ps['name'] == psn and not ps['requests']:
                        ps['requests'] = tot; ps['count'] = 1
        elif c == 'Condition':
            m = re.search(r'Type:\s*kueue\.WorkloadPreempted.*?Reason:\s*"?([\w\.]+)"?', a, re.S)
            if m: w['preempted_reason'] = m.group(1).split('.')[-1]
        elif c == 'SchedulingStatsEviction': pass
        else: raise ValueError('workload call ' + c)
    return w

def admissions(block):
    out = {}
    for m in re.finditer(r'"([^"/]+)/([^"]+)":\s*\{', block):
        end = chain_end(block, m.end())
        inner = block[m.end():end]
        cqm = re.search(r'ClusterQueue:\s*"([^"]+)"', inner)
        fl = {}; counts = {}
        for psa in re.finditer(r'MakePodSetAssignment\(', inner):
            e2 = chain_end(inner, psa.start())
            psname = None
            for c3, a3 in calls(inner[psa.start():e2]):
                if c3 == 'MakePodSetAssignment':
                    x = split_args(a3)[0]; psname = 'main' if 'DefaultPodSetName' in x else quant(x); fl[psname] = {}
                elif c3 == 'Assignment': aa = split_args(a3); fl[psname][res(aa[0])] = quant(aa[1])
                elif c3 == 'Count': counts[psname] = int(a3)
        out[m.group(1) + '/' + m.group(2)] = dict(fl, **({'counts': counts} if counts else {}))
    return out

def left(block):
    return re.findall(r'"([^"]+/[^"]+)"', block or '')

BASE = ['schedule-queues.yaml']
TOURNAMENT = ('Steward orders fair-sharing heads by their own queue\'s share (a flat tournament); '
              'Kueue runs the tournament level by level through the cohort tree')
KNOWN = {
    'hierarchical fair sharing schedule workload which wins tournament': TOURNAMENT,
    'with fair sharing: hierarchical nominal-first per-flavor ignores cross-flavor borrowing': TOURNAMENT,
    'with fair sharing: hierarchical nominal-first prefers non-borrowing subtree': TOURNAMENT,
    'with fair sharing: hierarchical nominal-first with deeper nesting': TOURNAMENT,
    'with fair sharing: hierarchical nominal-first with mixed CQ and cohort quotas': TOURNAMENT,
    'multiple preemptions within cq when fair sharing':
        'not explained yet: Steward finds the preemptors (3 CPU against nominal 2, reclaimWithinCohort '
        'Never) unable to preempt while borrowing; Kueue preempts one workload per queue',
    'container resource requests exceed limits':
        'Steward does not validate container requests against limits (Kueue leaves such a workload pending)',
    'prevent integer overflow in ResourceValue conversion to MilliValue':
        'Steward rejects a CPU quantity beyond int64 millicores as an input error instead of leaving the workload pending',
}
src = re.sub(r'/\*.*?\*/', '', re.sub(r'//[^\n]*', '', open(sys.argv[1]).read()), flags=re.S)
outdir = sys.argv[2]
PREFIX, UPFILE, UPTEST = (sys.argv[3:6] if len(sys.argv) > 5 else
                          ('schedule-', 'pkg/scheduler/scheduler_test.go', 'TestSchedule'))
st = src.index('\tcases := map[string]scheduleTestCase{')
body = src[st:]
names = [(m.group(1), m.start()) for m in re.finditer(r'^\t\t"([^"]+)": \{$', body, re.M)]
stop = [i for i, (n, s) in enumerate(names) if body[:s].count('\n\t}\n') > 0]
names = names[:stop[0]] if stop else names
ok = sk = 0
for i, (name, s) in enumerate(names):
    end = names[i + 1][1] if i + 1 < len(names) else body.index('\n\t}\n', s)
    case = body[s:end]
    slug = re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')
    if len(slug) > 80:  # Long names: a prefix plus a digest keeps every case its own file.
        import hashlib
        slug = slug[:72] + '-' + hashlib.sha1(name.encode()).hexdigest()[:7]
    slug = PREFIX + slug
    doc = {'upstream': {'repo': 'kubernetes-sigs/kueue', 'commit': 'ff69552e79ad',
                        'file': UPFILE, 'test': UPTEST, 'case': name}}
    VARS.clear()
    for m in re.finditer(r'(\w+) := (\*?utiltestingapi\.MakeFlavorQuotas\([^\n]*\.Obj\(\))\n', case):
        VARS[m.group(1)] = m.group(2)
    for m in re.finditer(r'(\w+) := (kueue\.ClusterQueuePreemption\{.*?\n\t+\})', case, re.S):
        VARS[m.group(1)] = m.group(2)
    try:
        fg = field(case, 'featureGates')
        if fg:
            gates = [g for g, v in re.findall(r'features\.(\w+):\s*(true|false)', fg) if not (g == 'PartialAdmission' and True)]
            if gates: raise ValueError('feature gate ' + ', '.join(gates))
        fair = bool(field(case, 'enableFairSharing'))
        for f in ['objects', 'admissionError', 'deleteWorkloads']:
            if field(case, f): raise ValueError(f'test-only input {f}')
        partial_off = bool(fg and re.search(r'features\.PartialAdmission:\s*false', fg))
        objs = []
        objs += [cq(x) for x in items(field(case, 'additionalClusterQueues') or '', 'MakeClusterQueue')]
        objs += [lq(x) for x in items(field(case, 'additionalLocalQueues') or '', 'MakeLocalQueue')]
        objs += [cohort(x) for x in items(field(case, 'cohorts') or '', 'MakeCohort')]
        wls = [sworkload(x) for x in items(field(case, 'workloads') or '', 'MakeWorkload')]
        if 'AdmissionCheck' in (field(case, 'workloads') or ''): raise ValueError('admission checks')
        for w in wls:
            if 'queue' not in w:
                if 'admitted' not in w: raise ValueError('pending workload without queue')
                w['queue'] = w['admitted']['cluster_queue']
        if partial_off:
            for w in wls:
                for ps in w['pod_sets']: ps.pop('minCount', None)
        want = [sworkload(x) for x in items(field(case, 'wantWorkloads') or '', 'MakeWorkload')]
        doc['include'] = BASE
        doc['cycles'] = 1
        if fair:
            objs.append({'apiVersion': 'config.kueue.x-k8s.io/v1beta1', 'kind': 'Configuration',
                         'fairSharing': {'enable': True}})
        if objs: doc['objects'] = objs
        doc['workloads'] = wls
        exp = {}
        wa = field(case, 'wantAssignments')
        if wa is not None:
            exp['admitted'] = admissions(wa)
        pend = left(field(case, 'wantLeft')) + left(field(case, 'wantInadmissibleLeft'))
        if pend: exp['pending'] = pend
        pre = {w['name']: w['preempted_reason'] for w in want if 'preempted_reason' in w}
        exp['preempted'] = pre
        if 'admitted' in exp:
            for k in list(exp['admitted']):
                if k.split('/')[-1] in pre: del exp['admitted'][k]  # evicted in this cycle
        if name in KNOWN: doc['known_difference'] = KNOWN[name]
        doc['expect'] = exp
        ok += 1
    except (ValueError, IndexError, KeyError, AttributeError, StopIteration) as e:
        doc['skip'] = str(e); sk += 1
    target = os.path.join(outdir, slug + '.yaml')
    if os.path.exists(target) and 'by hand' in open(target).read():
        continue  # re-expressed by hand; keep it
    with open(target, 'w') as f:
        f.write('# Kueue conformance case: re-expressed from the upstream table test named below\n'
                '# (facts only). Input: shared queues (include) + objects + workloads; expect: after the cycles.\n')
        yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None, width=100)
print('ok', ok, 'skipped', sk)
