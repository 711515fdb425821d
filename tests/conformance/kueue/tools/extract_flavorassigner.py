# One-off reader of Kueue's flavorassigner_test.go TestAssignFlavors cases (facts only) ->
# conformance YAML. Usage: extract_flavorassigner.py flavorassigner_test.go OUTDIR (Kueue
# checkout at ff69552e79ad).
#
# The unit test hands the assigner a ClusterQueue (and maybe a second one in its cohort) with
# usage added directly, and an oracle that says preemption is possible on every flavor unless
# the case fixes it (simulationResult). Re-expressed for `policy simulate`:
#   - each ClusterQueue's usage is held by one admitted workload of priority -1 per flavor
#     (`usage-<cq>-<flavor>`), in its own LocalQueue; where the case's oracle says "no
#     candidates" (simulationResult NoCandidates) the holders have priority 1 instead;
#   - the oracle's "preemption possible" becomes real: a ClusterQueue without a preemption
#     policy gets withinClusterQueue LowerPriority and reclaimWithinCohort Any, so the holders
#     are candidates;
#   - the incoming workload (`incoming`, priority 0) runs one cycle: a Fit must admit it on
#     the flavors the test wants per pod set and resource; Preempt or NoFit must leave it
#     pending, and NoFit must preempt nothing.
import hashlib, os, re, sys, yaml
sys.argv_saved = sys.argv
here = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(here, 'extract_schedule.py')).read().split('\nsrc = re.sub')[0])  # helpers
RES['corev1.ResourcePods'] = 'pods'

FLAVORS = {  # TestAssignFlavors' resourceFlavors (facts).
    'default': {},
    'one': {'nodeLabels': {'type': 'one'}},
    'two': {'nodeLabels': {'type': 'two'}},
    'b_one': {'nodeLabels': {'b_type': 'one'}},
    'b_two': {'nodeLabels': {'b_type': 'two'}},
    'tainted': {'nodeTaints': [{'key': 'instance', 'value': 'spot', 'effect': 'NoSchedule'}]},
    'taint_and_toleration': {
        'nodeTaints': [{'key': 'instance', 'value': 'spot', 'effect': 'NoSchedule'}],
        'tolerations': [{'key': 'instance', 'operator': 'Equal', 'value': 'spot',
                         'effect': 'NoSchedule'}]},
    'label-x-a': {'nodeLabels': {'x': 'a'}},
    'label-xy-b': {'nodeLabels': {'x': 'b', 'y': 'k'}},
}

UNITS = {'utiltesting.Mi': 1 << 20, 'utiltesting.Gi': 1 << 30, 'utiltesting.Ki': 1 << 10}

def amount(expr, resource):
    e = expr.strip().replace('_', '')
    for k, v in UNITS.items(): e = e.replace(k, str(v))
    if not re.fullmatch(r'[\d\s\*\+\-\(\)]+', e): raise ValueError('amount ' + expr)
    v = eval(e)
    return f'{v}m' if resource == 'cpu' else str(v)

def usage(block):
    """resources.FlavorResourceQuantities{{Flavor: "f", Resource: r}: resources.NewAmount(x)}"""
    out = {}
    if block is None or block.strip() == 'nil': return out
    for m in re.finditer(r'\{Flavor:\s*"([^"]+)",\s*Resource:\s*([\w\.]+|"[^"]+")\}:\s*resources\.NewAmount\(([^)]*)\)', block):
        r = res(m.group(2))
        out.setdefault(m.group(1), {})[r] = amount(m.group(3), r)
    if not out and 'NewAmount' in block: raise ValueError('usage ' + block[:80])
    return out

def strmap(a):
    return dict(re.findall(r'"([^"]+)":\s*"([^"]*)"', a))

def toleration(a):
    t = {}
    for key, field in [('Key', 'key'), ('Value', 'value')]:
        m = re.search(key + r':\s*"([^"]*)"', a)
        if m: t[field] = m.group(1)
    m = re.search(r'Operator:\s*corev1\.TolerationOp(\w+)', a)
    if m: t['operator'] = m.group(1)
    m = re.search(r'Effect:\s*corev1\.TaintEffect(\w+)', a)
    if m: t['effect'] = m.group(1)
    return t

def fa_podset(chain):
    ps = {'requests': {}}
    for c, a in calls(chain.lstrip('*')):
        if c == 'MakePodSet':
            aa = split_args(a)
            ps['name'] = 'main' if 'DefaultPodSetName' in aa[0] else quant(aa[0])
            ps['count'] = int(aa[1])
        elif c == 'Request': aa = split_args(a); ps['requests'][res(aa[0])] = quant(aa[1])
        elif c == 'NodeSelector': ps['node_selector'] = strmap(a)
        elif c == 'Toleration': ps.setdefault('tolerations', []).append(toleration(a))
        elif c == 'Containers':
            for r, q in re.findall(r'([\w\.]+|"[^"]+"):\s*"([^"]+)"', a):
                ps['requests'][res(r)] = q
        elif c in ('SingleContainerForRequest', 'Obj'): pass
        elif c == 'RequiredDuringSchedulingIgnoredDuringExecution':
            terms = []
            for t in re.findall(r'MatchExpressions:\s*\[\]corev1\.NodeSelectorRequirement\{(.*?)\n\t*\},?\n\t*\},', a, re.S):
                exprs = []
                for m in re.finditer(r'Key:\s*"([^"]+)",\s*Operator:\s*corev1\.NodeSelectorOp(\w+),\s*Values:\s*\[\]string\{([^}]*)\}', t):
                    exprs.append({'key': m.group(1), 'operator': m.group(2), 'values': tolist(m.group(3))})
                terms.append(exprs)
            if not terms or not all(terms): raise ValueError('node affinity ' + a[:60])
            ps['node_affinity'] = terms
        elif c == 'PodSetGroup': raise ValueError('pod set groups (LeaderWorkerSet, TAS)')
        elif c in ('RequiredTopologyRequest', 'PreferredTopologyRequest'):
            raise ValueError('topology-aware scheduling')
        else: raise ValueError('podset call ' + c)
    return ps

def want_flavors(block):
    """wantAssignment.PodSets[]: {Name, Flavors {resource: {Name: flavor}}, Count}."""
    out = {}
    for m in re.finditer(r'Name:\s*(kueue\.DefaultPodSetName|"[^"]+"),\s*\n\s*Flavors:\s*ResourceAssignment\{(.*?)\n\s*\},', block, re.S):
        psn = 'main' if 'DefaultPodSetName' in m.group(1) else quant(m.group(1))
        fl = {}
        for r, f in re.findall(r'([\w\.]+|"[^"]+"):\s*&?(?:FlavorAssignment)?\{Name:\s*"([^"]+)"', m.group(2)):
            fl[res(r)] = f
        out[psn] = fl
    return out

src = re.sub(r'/\*.*?\*/', '', re.sub(r'//[^\n]*', '', open(sys.argv_saved[1]).read()), flags=re.S)
outdir = sys.argv_saved[2]
st = src.index('func TestAssignFlavors(')
body = src[src.index('\tcases := map[string]struct {', st):src.index('func TestReclaimBeforePriorityPreemption')]
names = [(m.group(1), m.start()) for m in re.finditer(r'^\t\t"([^"]+)": \{$', body, re.M)]
ok = sk = 0
for i, (name, s) in enumerate(names):
    end = names[i + 1][1] if i + 1 < len(names) else len(body)
    case = body[s:end]
    slug = re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')
    if len(slug) > 80:
        slug = slug[:72] + '-' + hashlib.sha1(name.encode()).hexdigest()[:7]
    slug = 'flavorassigner-' + slug
    doc = {'upstream': {'repo': 'kubernetes-sigs/kueue', 'commit': 'ff69552e79ad',
                        'file': 'pkg/scheduler/flavorassigner/flavorassigner_test.go',
                        'test': 'TestAssignFlavors', 'case': name}}
    try:
        if field(case, 'featureGates') is not None:
            gates = re.findall(r'features\.(\w+):\s*(true|false)', field(case, 'featureGates'))
            raise ValueError('feature gate ' + ', '.join(f'{g}={v}' for g, v in gates))
        if field(case, 'topologies') is not None: raise ValueError('topology-aware scheduling')
        if field(case, 'preemptWorkloadSlice') is not None: raise ValueError('elastic workload slices')
        if field(case, 'wlReclaimablePods') is not None:
            raise ValueError('status.reclaimablePods (pods of a running workload that finished)')
        # The oracle saying "no candidates" on a flavor: its holders outrank the incoming
        # workload (priority 1), so nothing there may be preempted. Other answers (preemption
        # that still borrows, reclaim) depend on workloads the unit test does not have.
        guarded = set()
        if field(case, 'simulationResult') is not None:
            sim = field(case, 'simulationResult')
            entries = re.findall(r'\{Flavor:\s*"([^"]+)",\s*Resource:\s*[\w\.]+\}:\s*\{preemptioncommon\.(\w+),\s*(\d+)\}', sim)
            if not entries or any(p != 'NoCandidates' for _, p, _ in entries):
                raise ValueError('the preemption oracle fixed by the unit test (simulationResult: '
                                 'preemption that still borrows, without workloads to show it)')
            guarded = {f for f, _, _ in entries}
        pods = [fa_podset(p) for p in split_args(field(case, 'wlPods')[len('[]kueue.PodSet{'):-1])]
        queues = [cq(field(case, 'clusterQueue'))]
        second = field(case, 'secondaryClusterQueue')
        if second is not None: queues.append(cq(second.lstrip('&')))
        usages = [usage(field(case, 'clusterQueueUsage')), usage(field(case, 'secondaryClusterQueueUsage'))]
        fair = (field(case, 'enableFairSharing') or '').strip() == 'true'
        objs, wls = [], []
        used = set()
        for q in queues:
            for g in q['spec']['resourceGroups']:
                for fl in g['flavors']: used.add(fl['name'])
            if 'preemption' not in q['spec']:
                q['spec']['preemption'] = {'withinClusterQueue': 'LowerPriority', 'reclaimWithinCohort': 'Any'}
        for f in sorted(used):
            if f not in FLAVORS: raise ValueError('flavor ' + f)
            rf = {'apiVersion': 'kueue.x-k8s.io/v1beta1', 'kind': 'ResourceFlavor', 'metadata': {'name': f}}
            if FLAVORS[f]: rf['spec'] = FLAVORS[f]
            objs.append(rf)
        if fair:
            objs.append({'apiVersion': 'config.kueue.x-k8s.io/v1beta1', 'kind': 'Configuration',
                         'fairSharing': {'enable': True}})
        objs += queues
        for q, u in zip(queues, usages):
            for f, rs in sorted(u.items()):
                # Kueue counts one `pods` per pod: N pods of usage are N pods holding the rest.
                had_pods = 'pods' in rs
                count = int(rs.pop('pods', 1))
                for r, v in rs.items():
                    n = int(v[:-1]) if v.endswith('m') else int(v)
                    if n % count: raise ValueError(f'usage {v} of {r} over {count} pods')
                    rs[r] = f'{n // count}m' if v.endswith('m') else str(n // count)
                ps_name = 'u-' + re.sub(r'[^a-z0-9-]', '-', f)
                wls.append({'name': f'usage-{q["metadata"]["name"]}-{ps_name[2:]}', 'queue': q['metadata']['name'],
                            'priority': 1 if f in guarded else -1,
                            'pod_sets': [{'name': ps_name, 'count': count, 'requests': rs}],
                            'admitted': {'cluster_queue': q['metadata']['name'], 'flavors': {ps_name: {r: f for r in list(rs) + (['pods'] if had_pods else [])}}}})
        wls.append({'name': 'incoming', 'queue': queues[0]['metadata']['name'], 'priority': 0,
                    'created': 60, 'pod_sets': pods})
        mode = (field(case, 'wantRepMode') or 'NoFit').strip()  # Go's zero value
        doc['objects'] = objs
        doc['cycles'] = 1
        doc['workloads'] = wls
        if mode == 'Fit':
            doc['expect'] = {'admitted': {'incoming': want_flavors(field(case, 'wantAssignment'))}, 'preempted': {}}
        elif mode == 'Preempt':
            doc['expect'] = {'pending': ['incoming']}
        elif mode == 'NoFit':
            doc['expect'] = {'pending': ['incoming'], 'preempted': {}}
        else:
            raise ValueError('mode ' + mode)
        ok += 1
    except (ValueError, IndexError, KeyError, AttributeError, TypeError) as e:
        doc['skip'] = str(e)
        sk += 1
    target = os.path.join(outdir, slug + '.yaml')
    if os.path.exists(target) and 'by hand' in open(target).read():
        continue
    with open(target, 'w') as f:
        f.write('# Kueue conformance case: re-expressed from the upstream table test named below\n'
                '# (facts only; tools/extract_flavorassigner.py says how the unit test\'s usage and\n'
                '# preemption oracle become workloads). Expect: after one cycle.\n')
        yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None, width=100)
print('ok', ok, 'skipped', sk)
