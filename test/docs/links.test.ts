import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root } from './run-blocks.js';

// Pages moved out of the top README into docs/: every relative link of the Markdown a reader meets
// (READMEs and docs/) points at a file or folder that exists. Anchors are not checked.
const pages = execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path !== '' && (path.endsWith('README.md') || path.startsWith('docs/')));

describe.each(pages)('%s', (page) => {
  it('links only to files that exist', () => {
    const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map(([, target]) => target!.split('#')[0]!)
      .filter((target) => target !== '' && !/^[a-z][\w+.-]*:/i.test(target))
      .filter((target) => !existsSync(join(root, dirname(page), decodeURIComponent(target))));
    expect(broken).toEqual([]);
  });
});
