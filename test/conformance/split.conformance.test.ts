import { startSplitSut } from '../support/layouts';
import { conformanceResolver, describeConformance } from './suite';

describeConformance('split', () => startSplitSut({ resolver: conformanceResolver }));
