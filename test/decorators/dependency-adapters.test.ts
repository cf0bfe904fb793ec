/**
 * What agenttool relies on in class-transformer and class-validator beyond their
 * documented API, held here so that an upgrade that changes it fails this file, by
 * name, rather than a tool at run time. See src/decorators/class-transformer-adapter.ts
 * and src/decorators/class-validator-adapter.ts.
 */
import 'reflect-metadata';
import { Exclude, Expose, Transform, Type } from 'class-transformer';
import {
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  Length,
  Matches,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { usesTransformer } from '../../src/decorators/class-transformer-adapter';
import { classConstraints } from '../../src/decorators/class-validator-adapter';

describe("class-transformer's decorators, as the adapter reads them", () => {
  it('are seen on a class and on its fields', () => {
    class Nested {}
    class ByType {
      @Type(() => Nested) nested!: Nested;
    }
    class ByTransform {
      @Transform(({ value }: { value: string }) => value.trim()) name!: string;
    }
    class ByExpose {
      @Expose() shown!: string;
    }
    class ByExclude {
      @Exclude() hidden!: string;
    }
    class None {
      plain!: string;
    }
    expect(usesTransformer(ByType, ['nested'])).toBe(true);
    expect(usesTransformer(ByTransform, ['name'])).toBe(true);
    expect(usesTransformer(ByExpose, ['shown'])).toBe(true);
    expect(usesTransformer(ByExclude, ['hidden'])).toBe(true);
    expect(usesTransformer(None, ['plain'])).toBe(false);
  });
});

describe("class-validator's constraints, as the adapter reads them", () => {
  it('tells what the schema expresses from what class-validator must check', () => {
    class Carried {
      @IsInt() count!: number;
      @IsIn(['a', 'b']) choice!: string;
      @IsOptional() note?: string;
    }
    class Checked {
      @IsEmail() email!: string;
      @MinLength(3) name!: string;
    }
    const carried = classConstraints(Carried);
    expect(carried.mustRun).toBe(false);
    expect(carried.byField.get('count')).toEqual({
      integer: true,
      optional: false,
      enum: undefined,
    });
    expect(carried.byField.get('choice')?.enum).toEqual(['a', 'b']);
    expect(carried.byField.get('note')?.optional).toBe(true);
    const checked = classConstraints(Checked);
    expect(checked.mustRun).toBe(true);
    expect(checked.async).toBe(false);
  });

  it('give each constraint that always applies by name, with its arguments and each', () => {
    const pattern = /^[a-z]+$/;
    class Read {
      @Min(1) @Length(2, 4, { each: true }) a!: number;
      @Matches(pattern) @IsEmail() b!: string;
      @ValidateIf(() => true) @Min(1) conditional!: number;
      @Min(1, { groups: ['g'] }) grouped!: number;
      @Min(1, { validateIf: () => true }) ownCondition!: number;
    }
    const { validators } = classConstraints(Read);
    expect(validators.get('a')).toEqual([
      { name: 'isLength', args: [2, 4], each: true },
      { name: 'min', args: [1], each: false },
    ]);
    expect(validators.get('b')).toEqual([
      { name: 'isEmail', args: [undefined], each: false },
      { name: 'matches', args: [pattern, undefined], each: false },
    ]);
    expect([...validators.keys()].sort()).toEqual(['a', 'b']);
  });

  it('are registered in the global storage the adapter looks for before loading the package', () => {
    expect(
      (globalThis as { classValidatorMetadataStorage?: unknown }).classValidatorMetadataStorage,
    ).toBeDefined();
  });
});
