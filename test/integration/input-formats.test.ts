import { TOKEN, jobsYaml, workspace } from '../helpers/cli-harness.js';
import { byLine, contactWithKey, emulatorPerTest, sortedTags, writeBytes } from '../helpers/integration-fixtures.js';

const JOB = (input: string) => `input: ${input}
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  email: { column: email, transform: [email] }
tags: { column: segments }
state: false`;

describe('run: input formats', () => {
  const emulator = emulatorPerTest();

  it('reads a UTF-8 file with a BOM, semicolons and CRLF line ends: the first column is the key and no value keeps a CR', async () => {
    const ws = workspace();
    // C2's first name is quoted over two CRLF lines: C3 starts on line 5.
    ws.write('export.csv', '\uFEFFcustomer_id;first_name;email;segments\r\nC1;Zoë;zoe@example.com;vip,x\r\nC2;"Ann\r\nMarie";ann@example.com;newsletter\r\nC3;Bo;bo@example.com;\r\n');
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('export.csv') }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(emulator().contacts(TOKEN)).toHaveLength(3);
    expect(contactWithKey(emulator(), 'C1').custom_fields).toEqual({ customerid: 'C1', firstName: 'Zoë', email: 'zoe@example.com' });
    // The tag separator is ";" by default; the semicolon-delimited file keeps "vip,x" as one tag.
    expect(contactWithKey(emulator(), 'C1').tags).toEqual(['vip,x']);
    expect(contactWithKey(emulator(), 'C2').tags).toEqual(['newsletter']);
    expect(contactWithKey(emulator(), 'C3').tags).toEqual([]);
    expect(byLine(ws.results('import')).map((r) => [r.line, r.key, r.outcome])).toEqual([
      ['2', 'C1', 'created'],
      ['3', 'C2', 'created'],
      ['5', 'C3', 'created'],
    ]);
    expect(contactWithKey(emulator(), 'C3').custom_fields).toEqual({ customerid: 'C3', firstName: 'Bo', email: 'bo@example.com' });
  });

  it('a quoted value with line breaks keeps them, and every row reports the physical line it starts on', async () => {
    const ws = workspace();
    ws.write(
      'notes.csv',
      [
        'customer_id,first_name,email,segments,note',
        'C1,Ann,ann@example.com,a,plain',
        'C2,Bob,bob@example.com,b,"first line',
        'second line',
        'third line"',
        'C3,Cid,cid@example.com,c,"one, ""quoted"""',
        '',
        'C4,Dee,dee@example.com,"d1;',
        'd2",x',
        'C5,Eve,eve@example.com,e,last',
        '',
      ].join('\n'),
    );
    ws.write(
      'jobs.yaml',
      jobsYaml({
        url: emulator().url,
        job: 'input: notes.csv\nkey: { column: customer_id, field: customerid }\nfields:\n  firstName: first_name\n  note: note\ntags: { column: segments }\nstate: false',
      }),
    );

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(byLine(ws.results('import')).map((r) => [r.line, r.key, r.outcome])).toEqual([
      ['2', 'C1', 'created'],
      ['3', 'C2', 'created'],
      ['6', 'C3', 'created'],
      ['8', 'C4', 'created'],
      ['10', 'C5', 'created'],
    ]);
    expect(contactWithKey(emulator(), 'C2').custom_fields.note).toBe('first line\nsecond line\nthird line');
    expect(contactWithKey(emulator(), 'C3').custom_fields.note).toBe('one, "quoted"');
    expect(sortedTags(contactWithKey(emulator(), 'C4'))).toEqual(['d1', 'd2']);
  });

  it('a row after a multi-line value that fails is reported with its own first line', async () => {
    const ws = workspace();
    ws.write(
      'notes.csv',
      ['customer_id,first_name,email,segments', 'C1,"Ann', 'Marie",ann@example.com,a', 'C2,Bob,not-an-email,b', 'C3,Cid,cid@example.com,c', ''].join('\n'),
    );
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('notes.csv') }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(byLine(ws.results('import')).map((r) => [r.line, r.key, r.outcome, r.error_code])).toEqual([
      ['2', 'C1', 'created', ''],
      ['4', 'C2', 'failed', 'INVALID_EMAIL'],
      ['5', 'C3', 'created', ''],
    ]);
    expect(ws.results('import').find((r) => r.key === 'C2')?.error_message).toContain('line 4');
    expect(contactWithKey(emulator(), 'C1').custom_fields.firstName).toBe('Ann\nMarie');
  });

  it('reads a latin1 file with encoding: latin1 and stores the accented letters as they are', async () => {
    const ws = workspace();
    writeBytes(ws, 'latin1.csv', Buffer.from('customer_id,first_name,email,segments\nL1,José,jose@example.com,café\nL2,Müller,mueller@example.com,\n', 'latin1'));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('{ path: latin1.csv, encoding: latin1 }') }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(0);
    expect(contactWithKey(emulator(), 'L1').custom_fields.firstName).toBe('José');
    expect(contactWithKey(emulator(), 'L1').tags).toEqual(['café']);
    expect(contactWithKey(emulator(), 'L2').custom_fields.firstName).toBe('Müller');
  });

  it('a latin1 file read as UTF-8 (the default) fails its rows with CSV_INVALID_BYTES instead of storing mangled text', async () => {
    const ws = workspace();
    writeBytes(ws, 'latin1.csv', Buffer.from('customer_id,first_name,email,segments\nL1,José,jose@example.com,\nL2,Ann,ann@example.com,\n', 'latin1'));
    ws.write('jobs.yaml', jobsYaml({ url: emulator().url, job: JOB('latin1.csv') }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);

    expect(run.exitCode).toBe(1);
    expect(byLine(ws.results('import')).map((r) => [r.line, r.outcome, r.error_code])).toEqual([
      ['2', 'failed', 'CSV_INVALID_BYTES'],
      ['3', 'created', ''],
    ]);
    expect(emulator().contacts(TOKEN).map((c) => c.custom_fields.customerid)).toEqual(['L2']);
  });
});
