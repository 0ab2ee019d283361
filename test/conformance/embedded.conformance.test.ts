import { startEmbeddedSut } from '../support/layouts';
import { conformanceResolver, describeConformance } from './suite';

describeConformance('embedded', () => startEmbeddedSut({ resolver: conformanceResolver }));
