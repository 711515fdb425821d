#!/usr/bin/python3
"""Kueue conformance suite: runs every case of this directory through `steward policy simulate`.

Usage: run.py STEWARD [CASE.yaml...] [--verbose]

A case (Steward's own YAML) names the upstream Kueue table test it re-expresses and holds:
  include:   files of this directory with shared Kueue objects (flavors, ClusterQueues, ...)
  objects:   more Kueue objects (a list of documents)
  workloads: compact workloads, expanded here into Kueue Workload objects in the shape
             `kubectl get workloads -A -o yaml` prints (a kind: List): name, namespace
             (default "default"), queue (LocalQueue, created in the namespace, pointing at the
             ClusterQueue of the same name unless `objects` declares it), priority, created
             (seconds after a fixed epoch), pod_sets [{name, count, minCount, requests, limits,
             node_selector, node_affinity [[{key, operator, values}]], tolerations}],
             admitted {cluster_queue, flavors {pod set: {resource: flavor}}, counts}, reserved_at
  cycles:    scheduling cycles to run (default: until nothing changes)
  expect:    preempted {name: Kueue reason} (exactly these; not checked when absent), preempted_by, admitted [names] or {name: {pod set:
             {resource: flavor}}}, pending [names], usage {cq: {flavor: {resource: amount}}}
  skip:      the feature the case needs that Steward cannot express (not run)
  known_difference: why Steward decides otherwise (run; a failure is expected and reported)
Prints one line per case and a summary; exits 1 on an unexpected failure.
"""
import glob, json, os, subprocess, sys, tempfile
import yaml

EPOCH = 1704067200  # 2024-01-01T00:00:00Z


def ts(seconds):
    import datetime
    return datetime.datetime.fromtimestamp(EPOCH + int(seconds), datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ')


def expand(case, included=()):
    included = list(included)
    items, lqs = [], {}
    for w in case.get('workloads', []):
        ns = w.get('namespace', 'default')
        lqs[(ns, w['queue'])] = w['queue']
        pod_sets = []
        for ps in w['pod_sets']:
            resources = {'requests': {k: str(v) for k, v in ps.get('requests', {}).items()}}
            if 'limits' in ps:
                resources['limits'] = {k: str(v) for k, v in ps['limits'].items()}
            p = {'name': ps['name'], 'count': ps.get('count', 1),
                 'template': {'spec': {'containers': [{'name': 'c', 'resources': resources}]}}}
            if 'minCount' in ps:
                p['minCount'] = ps['minCount']
            if 'node_selector' in ps:
                p['template']['spec']['nodeSelector'] = ps['node_selector']
            if 'node_affinity' in ps:
                p['template']['spec']['affinity'] = {'nodeAffinity': {
                    'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [
                        {'matchExpressions': t} for t in ps['node_affinity']]}}}
            if 'tolerations' in ps:
                p['template']['spec']['tolerations'] = ps['tolerations']
            pod_sets.append(p)
        obj = {'apiVersion': 'kueue.x-k8s.io/v1beta1', 'kind': 'Workload',
               'metadata': {'name': w['name'], 'namespace': ns,
                            'creationTimestamp': ts(w.get('created', 0))},
               'spec': {'queueName': w['queue'], 'podSets': pod_sets}}
        if 'priority' in w:
            obj['spec']['priority'] = w['priority']
        if 'priority_class' in w:
            obj['spec']['priorityClassName'] = w['priority_class']
        if 'admitted' in w:
            a = w['admitted']
            obj['status'] = {
                'admission': {'clusterQueue': a['cluster_queue'], 'podSetAssignments': [
                    dict({'name': ps, 'flavors': fl},
                         **({'count': a['counts'][ps]} if ps in a.get('counts', {}) else {}))
                    for ps, fl in a['flavors'].items()]},
                'conditions': [{'type': 'QuotaReserved', 'status': 'True',
                                'lastTransitionTime': ts(w.get('reserved_at', 0))},
                               {'type': 'Admitted', 'status': 'True',
                                'lastTransitionTime': ts(w.get('reserved_at', 0))}]}
        items.append(obj)
    declared = {(o.get('metadata', {}).get('namespace', 'default'), o['metadata']['name'])
                for o in case.get('objects', []) + included if o.get('kind') == 'LocalQueue'}
    docs = list(case.get('objects', []))
    for (ns, name), cq in sorted(lqs.items()):
        if (ns, name) not in declared:
            docs.append({'apiVersion': 'kueue.x-k8s.io/v1beta1', 'kind': 'LocalQueue',
                         'metadata': {'name': name, 'namespace': ns}, 'spec': {'clusterQueue': cq}})
    docs.append({'apiVersion': 'v1', 'kind': 'List', 'items': items})
    return docs


def check(case, out):
    by_name = {w['name']: w for w in out['workloads']}
    by_name.update({f"{w['namespace']}/{w['name']}": w for w in out['workloads']})
    exp, errors = case.get('expect', {}), []
    want_pre = exp.get('preempted', {}) or {}
    got_pre = {w['name'] for w in out['workloads'] if w['state'] == 'preempted'}
    if 'preempted' in exp and {n.split('/')[-1] for n in want_pre} != got_pre:
        errors.append(f'preempted {sorted(got_pre)}, want {sorted(want_pre)}')
    for n, reason in want_pre.items():
        w = by_name.get(n)
        if w and w['state'] == 'preempted' and reason and w['reason'] != reason:
            errors.append(f'{n} preempted for {w["reason"]}, want {reason}')
        if w and exp.get('preempted_by') and w['state'] == 'preempted' and \
                w['preempted_by'].split('/')[-1] != exp['preempted_by']:
            errors.append(f'{n} preempted by {w["preempted_by"]}, want {exp["preempted_by"]}')
    adm = exp.get('admitted', [])
    for n in adm:
        w = by_name.get(n)
        if not w or w['state'] != 'admitted':
            errors.append(f'{n} is {w["state"] if w else "missing"} ({w["message"] if w else ""}), want admitted')
        elif isinstance(adm, dict) and adm[n]:
            for ps, fl in adm[n].items():
                if ps == 'counts':
                    continue
                got = w['flavors'].get(ps, {})
                for r, f in fl.items():
                    if got.get(r) != f:
                        errors.append(f'{n}/{ps}/{r} on {got.get(r)}, want {f}')
            for ps, c in (adm[n].get('counts') or {}).items():
                if w['counts'].get(ps) != c:
                    errors.append(f'{n}/{ps} count {w["counts"].get(ps)}, want {c}')
    for n in exp.get('pending', []):
        w = by_name.get(n)
        if not w or w['state'] != 'pending':
            errors.append(f'{n} is {w["state"] if w else "missing"}, want pending')
    queues = {q['name']: q for q in out['cluster_queues']}
    for cq, flavors in (exp.get('usage') or {}).items():
        for f, rs in flavors.items():
            for r, v in rs.items():
                got = queues.get(cq, {}).get('usage', {}).get(f, {}).get(r)
                if got != v:
                    errors.append(f'usage {cq}/{f}/{r} = {got}, want {v}')
    return errors


def main():
    args = [a for a in sys.argv[1:] if a != '--verbose']
    verbose = '--verbose' in sys.argv
    steward, files = args[0], args[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    if not files:
        files = sorted(glob.glob(os.path.join(here, '*.yaml')))
    counts = {'pass': 0, 'fail': 0, 'known': 0, 'skip': 0, 'unexpected_pass': 0}
    skipped, known, failed = [], [], []
    for path in files:
        with open(path) as f:
            case = next(iter(yaml.safe_load_all(f)), None)
        if not isinstance(case, dict) or 'upstream' not in case:
            continue  # a shared include
        up = case['upstream']
        label = f'{os.path.basename(path)} ({up["test"]}: {up["case"]})'
        if case.get('skip'):
            counts['skip'] += 1
            skipped.append((label, case['skip']))
            continue
        docs = []
        for inc in case.get('include', []):
            with open(os.path.join(here, inc)) as f:
                docs += [d for d in yaml.safe_load_all(f) if d]
        docs += expand(case, docs)
        with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as tmp:
            yaml.safe_dump_all(docs, tmp, sort_keys=False)
        cmd = [steward, 'policy', 'simulate', tmp.name, '--json']
        if case.get('cycles'):
            cmd += ['--cycles', str(case['cycles'])]
        run = subprocess.run(cmd, capture_output=True, text=True)
        os.unlink(tmp.name)
        if run.returncode != 0:
            errors = [f'steward failed: {run.stderr.strip()}']
        else:
            errors = check(case, json.loads(run.stdout))
            if verbose:
                print(run.stdout)
        kd = case.get('known_difference')
        if errors and kd:
            counts['known'] += 1
            known.append((label, kd))
            print(f'KNOWN  {label}: {"; ".join(errors)}')
        elif errors:
            counts['fail'] += 1
            failed.append(label)
            print(f'FAIL   {label}: {"; ".join(errors)}')
        elif kd:
            counts['unexpected_pass'] += 1
            print(f'UPASS  {label} (known_difference says it should fail: {kd})')
        else:
            counts['pass'] += 1
            print(f'PASS   {label}')
    expressible = counts['pass'] + counts['fail'] + counts['known'] + counts['unexpected_pass']
    print(f'\n{expressible} expressible cases: {counts["pass"] + counts["unexpected_pass"]} pass, '
          f'{counts["fail"]} fail, {counts["known"]} known differences; {counts["skip"]} skipped')
    for label, why in skipped:
        print(f'SKIP   {label}: needs {why}')
    return 1 if counts['fail'] or counts['unexpected_pass'] else 0


if __name__ == '__main__':
    sys.exit(main())
