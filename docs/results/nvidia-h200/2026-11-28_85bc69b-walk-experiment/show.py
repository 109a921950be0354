import json,sys
for f in sys.argv[1:]:
    d=json.load(open(f))
    e=[e for e in d['elements'] if e['id']=='dram'][0]
    t=e['latency_tlb_miss']
    print(f.split('/')[-1], t['value'], 'foot', t['evidence'].get('footprint_bytes'))
    for x in t['evidence'].get('walk_experiment',[]):
        print('   %-34s p5 %7.1f p50 %7.1f p95 %7.1f fast %.2f %.2fs'%(x['chase'],x['p5'],x['p50'],x['p95'],x['fast_share'],x['seconds']))
    rows=e.get('latency_patterns',{}).get('value',[])
    for r in rows:
        if r.get('reachable') and r['data']=='dram': print('   pattern',r['tlb'],r['cycles'],r['p5_cycles'])
