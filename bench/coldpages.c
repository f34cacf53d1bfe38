// Cold page walks: sums 200 MB (25e6 doubles) in one thread, 21 times, each after
// `sleep` ms idle, with 4 KiB pages or with madvise(MADV_HUGEPAGE), and prints the
// median. The README's reduction notes cite it: a run that starts on an idle VM
// pays for page walks over 4 KiB pages that huge pages (NumPy madvises its
// arrays) avoid.
//   gcc -O2 bench/coldpages.c -o /tmp/coldpages && for h in 0 1; do for s in 0 250; do /tmp/coldpages $h $s; done; done
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(int argc,char**argv){
  int huge=atoi(argv[1]); int sleepms=atoi(argv[2]);
  size_t n=25000000, bytes=n*8, al=1<<21;
  char*raw=mmap(0,bytes+al,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  double*x=(double*)(((size_t)raw+al-1)&~(al-1));
  if(huge) madvise(x,bytes,MADV_HUGEPAGE);
  for(size_t i=0;i<n;i++) x[i]=(double)(i%1000);
  double ts[21]; double s=0;
  for(int r=0;r<21;r++){ usleep(sleepms*1000); double t=now(); double a0=0,a1=0,a2=0,a3=0; for(size_t i=0;i<n;i+=4){a0+=x[i];a1+=x[i+1];a2+=x[i+2];a3+=x[i+3];} s+=a0+a1+a2+a3; ts[r]=now()-t; }
  // sort
  for(int i=0;i<21;i++)for(int j=i+1;j<21;j++)if(ts[j]<ts[i]){double t=ts[i];ts[i]=ts[j];ts[j]=t;}
  printf("huge=%d sleep=%d median %.2f ms min %.2f (%.0f)\n",huge,sleepms,ts[10],ts[0],s);
  FILE*f=fopen("/proc/self/smaps_rollup","r"); char line[256]; while(fgets(line,256,f)) if(strstr(line,"AnonHuge")) printf("  %s",line);
}
